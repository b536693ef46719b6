"""The course's reference needle: a small autograd library on numpy (homework 1's API)."""
from . import ops
from .autograd import Tensor, cpu, all_devices
from .ops import *  # noqa: F403 - needle exposes its ops at the top, as the homework's package does
