# exercise: control-flow
# Mistake (partial): in the x <= 0 branch the student computes -3 * x.item() and wraps it in a
# new tensor, which cuts y off from x: x.grad stays None there and reading it fails. The x ** 2
# branch and power_loop are right.
import torch


def g(x):
    if x > 0:
        y = x ** 2
    else:
        y = torch.tensor(-3 * x.item(), requires_grad=True)
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p = x
    for _ in range(k - 1):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
