# exercise: control-flow
"""Exercise control-flow: Python's if and loops inside a graph (solution)."""


def g(x):
    """y = x ** 2 where x > 0, else y = -3 * x; y.backward(); (y, dy/dx, the name of y's grad_fn).

    x is a one-number leaf tensor with requires_grad=True. The if runs on this call's x, so
    each call records the graph of the branch it took: PowBackward0 or MulBackward0.
    """
    if x > 0:
        y = x ** 2
    else:
        y = -3 * x
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    """p = x, then k - 1 more times p = p * x, so p = x ** k; p.backward(); (p, dp/dx).

    Every pass of the loop records one more multiply node, all of them using x, so the
    gradient adds up over k paths: k * x ** (k - 1).
    """
    p = x
    for _ in range(k - 1):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
