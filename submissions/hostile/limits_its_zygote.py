# exercise: first-gradient
# Hostile: lowers its zygote's limits and priority, so that every later classmate fails, then behaves
import os
import resource

import torch

# prlimit(2) on another process needs only the same uid: a zygote left with 3 descriptors can no longer
# take the next run's pipes, and one with 1 s of CPU time soon dies.
_parent = os.getppid()
for _what, _do in [("descriptors", lambda: resource.prlimit(_parent, resource.RLIMIT_NOFILE, (3, 3))),
                   ("cpu time", lambda: resource.prlimit(_parent, resource.RLIMIT_CPU, (1, 1))),
                   ("priority", lambda: os.setpriority(os.PRIO_PROCESS, _parent, 19)),
                   ("cpus", lambda: os.sched_setaffinity(_parent, {0}))]:
    try:
        _do()
        print("lowered the zygote's", _what)
    except OSError as _e:
        print("could not lower the zygote's", _what, type(_e).__name__)


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
