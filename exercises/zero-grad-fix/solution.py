# exercise: zero-grad-fix
"""Exercise zero-grad-fix: clear the gradients in the lesson's training loop (solution)."""

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
        losses.append(loss.item())
    return w.item(), b.item(), losses
