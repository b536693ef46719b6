# exercise: no-grad-fix
"""Variant of no-grad-fix: x rebuilt each step from the updated number, a fresh leaf (so nothing to clear), float64."""

import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    value = float(x0)
    for _ in range(steps):
        x = torch.tensor(value, dtype=torch.float64, requires_grad=True)
        (x**3 - 4 * x).backward()
        value = value - lr * x.grad.item()
    return value
