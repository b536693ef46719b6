# exercise: control-flow
# Uses torch.where instead of an if: the values and slopes are right, but the graph holds both
# branches every time, and the result is made by WhereBackward0, which hides the branch taken.
import torch


def g(x):
    y = torch.where(x > 0, x ** 2, -3 * x)
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p = x
    for _ in range(k - 1):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
