# exercise: no-grad-fix
"""Mutant of no-grad-fix.

mistake: rebinds-x-outside-no-grad
hint: x = x - lr * x.grad outside torch.no_grad() records the update in the graph: the new x is not a leaf, so its .grad stays None and the next step fails. Update in place inside `with torch.no_grad():`.
"""

import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    """Gradient descent on f(x) = x**3 - 4x from x0 with autograd's slope; return x as a float."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        x = x - lr * x.grad  # a new, non-leaf tensor
    return x.item()
