# exercise: no-grad-fix
"""Mutant of no-grad-fix.

mistake: returns-a-tensor
hint: return a Python float: x.item() turns the one-number tensor into one.
"""

import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    """Gradient descent on f(x) = x**3 - 4x from x0 with autograd's slope; return x as a float."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        with torch.no_grad():
            x -= lr * x.grad
        x.grad = None
    return x
