# exercise: zero-grad-fix
"""Variant of zero-grad-fix: the lesson's float32 weights, the gradients zeroed in place after each update."""

import torch


def fit(kg, price, steps=2000, lr=0.05):
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for _ in range(steps):
        residual = w * kg + b - price
        loss = (residual * residual).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
            b.sub_(lr * b.grad)
            w.grad.zero_()
            b.grad.zero_()
    return w.item(), b.item(), losses
