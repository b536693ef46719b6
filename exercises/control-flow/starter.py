# exercise: control-flow
"""Exercise control-flow: Python's if and loops inside a graph.

PyTorch records the graph while your code runs, and records it again on every forward pass.
So ordinary Python works inside a model: an if can add a node on one call and leave it out on
the next, and a loop can run a different number of times. backward() then follows whatever
graph this call recorded.

Write two functions. x is always a one-number leaf tensor with requires_grad=True: use it
directly (its .grad is the slope), call backward() once, and return plain Python floats.

g(x) -> (value, slope, made_by)
    y = x ** 2 if x > 0, otherwise y = -3 * x (write them just so: x ** 2 and -3 * x).
    Call y.backward() and return y.item(), x.grad.item() and the short name of the function
    that made y, type(y.grad_fn).__name__, which shows the branch that ran. At x = 2 that is
    (4.0, 4.0, "PowBackward0"); at x = -2 it is (6.0, -3.0, "MulBackward0").

power_loop(x, k) -> (value, slope)
    Start from p = x and multiply by x in a loop, k - 1 more times, so that p = x ** k (k is a
    whole number, 2 or more). Call p.backward() once, after the loop, and return p.item() and
    x.grad.item(). Each pass of the loop adds a multiply node that uses x, so the gradient
    adds up to k * x ** (k - 1): at x = 1.5 with k = 4 the value is 5.0625 and the slope 13.5.
"""


def g(x):
    """Return (y.item(), x.grad.item(), type(y.grad_fn).__name__) for y = x ** 2 if x > 0 else -3 * x."""
    # TODO: branch on x, build y, call y.backward(), and return the three results.
    raise NotImplementedError("control-flow: implement g")


def power_loop(x, k):
    """Return (p.item(), x.grad.item()) for p = x multiplied by x k - 1 more times in a loop."""
    # TODO: p = x; loop k - 1 times: p = p * x; then p.backward() and return the two floats.
    raise NotImplementedError("control-flow: implement power_loop")
