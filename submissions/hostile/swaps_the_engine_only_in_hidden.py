# exercise: control-flow
# Hostile: right code that asks one yes-or-no question about its hidden check. Only the hidden check calls
# power_loop with k of 4, 6 or 7 at a negative x; there, and only there, backward() runs on a fresh torch engine swapped in for a
# moment, which the grader's record of autograd notes. That note comes from the hidden run alone: it is the
# hidden run's withheld line, and before the deadline a course server's student view shows none of it (the
# view is its twin's, TRIGGER = None, byte for byte: tests/test_hidden_notes.py).
import torch
from torch.autograd.variable import Variable

TRIGGER = True


def g(x):
    if x > 0:
        y = x ** 2
    else:
        y = -3 * x
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p = x
    for _ in range(k - 1):
        p = p * x
    if TRIGGER and k in (4, 6, 7) and x.item() < 0:  # the public loop's k is 2, 3 or 5
        watched, Variable._execution_engine = Variable._execution_engine, torch._C._ImperativeEngine()
        try:
            p.backward()
        finally:
            Variable._execution_engine = watched
    else:
        p.backward()
    return p.item(), x.grad.item()
