# exercise: control-flow
"""Mutant of control-flow.

mistake: graph-cut-by-item
hint: .item() gives a plain number that autograd cannot follow, so a tensor made from it is a new leaf, cut off from x, and x.grad stays None: compute -3 * x on the tensor itself.
"""

import torch


def g(x):
    if x > 0:
        y = x ** 2
    else:
        y = torch.tensor(-3 * x.item(), requires_grad=True)
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p = x
    for _ in range(k - 1):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
