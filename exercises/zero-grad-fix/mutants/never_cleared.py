# exercise: zero-grad-fix
"""Mutant of zero-grad-fix.

mistake: gradients-never-cleared
hint: clear w.grad and b.grad after each update (w.grad = None, or w.grad.zero_() under torch.no_grad()): backward() adds to what .grad holds, so without it every update uses the sum of all the gradients so far, and the loss swings instead of settling.
"""

import torch


def fit(kg, price, steps=2000, lr=0.05):
    """The starter's loop as handed out: the gradients are never cleared."""
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for step in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        losses.append(loss.item())
    return w.item(), b.item(), losses
