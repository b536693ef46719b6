# exercise: control-flow
"""Mutant of control-flow.

mistake: loop-off-by-one
hint: starting from p = x, the loop multiplies k - 1 more times (p = x ** k); k more multiplications give x ** (k + 1).
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
    for _ in range(k):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
