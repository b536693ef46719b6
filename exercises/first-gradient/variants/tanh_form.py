# exercise: first-gradient
"""Variant of first-gradient: float64, the sigmoid as 0.5 * (1 + tanh(z / 2)), which is the same function."""

import torch


def neuron_grads(x, y, w, b):
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    a = 0.5 * (1 + torch.tanh((w * x + b) / 2))
    loss = (a - y) ** 2
    loss.backward()
    return float(loss), float(w.grad), float(b.grad)
