"""The course's reference minitorch at module 1: scalars with reverse-mode differentiation."""
from .autodiff import *  # noqa: F401,F403
from .scalar import *  # noqa: F401,F403
from .scalar_functions import *  # noqa: F401,F403
