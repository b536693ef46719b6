# exercise: no-grad-fix
"""Mutant of no-grad-fix.

mistake: rebinds-x-inside-no-grad
hint: x = x - lr * x.grad inside torch.no_grad() makes a new tensor that does not require grad, so the next backward() has nothing to differentiate: write x -= lr * x.grad, which changes x in place and keeps it a leaf.
"""

import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    """Gradient descent on f(x) = x**3 - 4x from x0 with autograd's slope; return x as a float."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        with torch.no_grad():
            x = x - lr * x.grad  # a new tensor without requires_grad
        x.grad = None
    return x.item()
