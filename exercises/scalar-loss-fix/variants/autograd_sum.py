# exercise: scalar-loss-fix
"""Variant of scalar-loss-fix: float64, torch.sum and torch.mean as functions, the residual squared by pow."""

import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    torch.sum(f(w)).backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    kg, price = torch.as_tensor(kg, dtype=torch.float64), torch.as_tensor(price, dtype=torch.float64)
    loss = torch.mean(torch.pow(kg * w + b - price, 2))
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
