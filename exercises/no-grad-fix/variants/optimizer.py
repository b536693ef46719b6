# exercise: no-grad-fix
"""Variant of no-grad-fix: torch.optim.SGD makes the update and clears the gradient, in float64."""

import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.SGD([x], lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        (x * x * x - 4 * x).backward()
        optimizer.step()
    return float(x)
