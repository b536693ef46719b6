# exercise: scalar-loss-fix
"""Mutant of scalar-loss-fix.

mistake: norm-instead-of-sum
hint: out.norm() is the length of the vector, not its sum: its gradient is out / out.norm() times f's slope. Reduce with out.sum().
"""

import torch


def grads_of_sum(f, values):
    """The gradient of f(w).sum() with respect to w = tensor(values), as a (nested) list of floats."""
    w = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    out = f(w)
    out.norm().backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    """(loss, dL/dw, dL/db) as floats, for loss = the mean over the batch of (w * kg + b - price) ** 2."""
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    kg = torch.tensor(kg, dtype=torch.float64)
    price = torch.tensor(price, dtype=torch.float64)
    loss = ((w * kg + b - price) ** 2).mean()
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
