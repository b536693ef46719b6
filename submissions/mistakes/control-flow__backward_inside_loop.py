# exercise: control-flow
# Mistake: power_loop calls backward() inside the loop, after every multiplication (with
# retain_graph=True to get past the "second time" error), so x.grad is the sum of the slopes of
# x**2, x**3, ..., x**k instead of the slope of x**k alone. g is right.


def g(x):
    if x > 0:
        y = x ** 2
    else:
        y = -3 * x
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p = x
    for i in range(k - 1):
        p = p * x
        p.backward(retain_graph=True)
    return p.item(), x.grad.item()
