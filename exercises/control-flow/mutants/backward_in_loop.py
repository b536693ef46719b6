# exercise: control-flow
"""Mutant of control-flow.

mistake: backward-inside-loop
hint: call backward() once, on the final p, after the loop: a backward() in every pass adds each partial product's gradient to x.grad.
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
        p = p * x
        p.backward(retain_graph=True)
    return p.item(), x.grad.item()
