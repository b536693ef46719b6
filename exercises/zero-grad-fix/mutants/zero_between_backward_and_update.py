# exercise: zero-grad-fix
"""Mutant of zero-grad-fix.

mistake: cleared-before-the-update
hint: clear the gradients after the update (or before the next backward()), never between backward() and the update: cleared there, every update is zero and w and b never move.
"""

import torch


def fit(kg, price, steps=2000, lr=0.05):
    """Fit price = w * kg + b by gradient descent with autograd; return (w, b, losses).

    w and b start at 0; each step measures loss = mean((w * kg + b - price) ** 2), calls
    backward(), updates w and b under torch.no_grad(), and clears their gradients.
    """
    kg = torch.as_tensor(kg, dtype=torch.float64)
    price = torch.as_tensor(price, dtype=torch.float64)
    w = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        w.grad.zero_()  # cleared too early: the update below subtracts zero
        b.grad.zero_()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        losses.append(loss.item())
    return w.item(), b.item(), losses
