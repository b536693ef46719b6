# exercise: zero-grad-fix
"""Variant of zero-grad-fix: the data and the weights all float32, the gradients cleared with w.grad = None."""

import torch


def fit(kg, price, steps=2000, lr=0.05):
    kg, price = kg.float(), price.float()
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
        losses.append(loss.item())
    return w.item(), b.item(), losses
