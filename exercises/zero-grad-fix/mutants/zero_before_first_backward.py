# exercise: zero-grad-fix
"""Mutant of zero-grad-fix.

mistake: zero-before-any-grad
hint: before the first backward() w.grad is None, so w.grad.zero_() fails: clear with w.grad = None after each update, or check `if w.grad is not None`, or let optimizer.zero_grad() do it.
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
        w.grad.zero_()  # None on the first step: nothing has called backward() yet
        b.grad.zero_()
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
        losses.append(loss.item())
    return w.item(), b.item(), losses
