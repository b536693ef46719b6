# exercise: zero-grad-fix
"""Mutant of zero-grad-fix.

mistake: logs-loss-tensors
hint: log loss.item(), a plain float: appending the loss tensor returns tensors instead of floats and keeps every step's graph alive.
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
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
        losses.append(loss)  # the tensor, with its graph
    return w.item(), b.item(), losses
