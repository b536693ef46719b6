# exercise: control-flow
# Correct functions, but a quick test at the bottom calls g with a plain float: 2.0 ** 2 is a
# float, which has no backward(), so loading the file fails before any check runs.


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
    p.backward()
    return p.item(), x.grad.item()


print("g(2) =", g(2.0))
