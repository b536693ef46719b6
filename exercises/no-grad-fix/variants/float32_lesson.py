# exercise: no-grad-fix
"""Variant of no-grad-fix: the lesson's float32 x, updated under torch.no_grad() and cleared with zero_()."""

import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(x0, requires_grad=True)
    for _ in range(steps):
        f = x**3 - 4 * x
        f.backward()
        with torch.no_grad():
            x -= lr * x.grad
            x.grad.zero_()
    return x.item()
