# exercise: control-flow
"""Mutant of control-flow.

mistake: constant-factor
hint: multiply by the tensor x, not x.item(): a plain number is a constant to autograd, so only one of the k paths to x is followed and the slope is x ** (k - 1) instead of k * x ** (k - 1).
"""


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
        p = p * x.item()
    p.backward()
    return p.item(), x.grad.item()
