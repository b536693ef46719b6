# exercise: control-flow
# Correct, written with tensor methods: x.pow(2) and x.mul(-3) record the same nodes as
# x ** 2 and -3 * x, and the loop starts from a tensor of ones and multiplies k times.
import torch


def g(x):
    y = x.pow(2) if x.item() > 0 else x.mul(-3)
    y.backward()
    return y.item(), x.grad.item(), y.grad_fn.name()


def power_loop(x, k):
    p = torch.ones_like(x)
    for _ in range(k):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
