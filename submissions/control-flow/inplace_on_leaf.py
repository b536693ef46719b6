# exercise: control-flow
# The loop multiplies in place, p *= x, but p is x itself (p = x does not copy), so the first
# pass changes the leaf x in place, which torch refuses.


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
        p *= x
    p.backward()
    return p.item(), x.grad.item()
