# exercise: control-flow
"""Variant of control-flow: an if on the tensor itself with an else that multiplies first, and a while loop that
counts its own multiplications."""


def g(x):
    if x <= 0:
        y = -3 * x
    else:
        y = x * x if False else x**2
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p, done = x, 1
    while done < k:
        p = p * x
        done += 1
    p.backward()
    return p.item(), x.grad.item()
