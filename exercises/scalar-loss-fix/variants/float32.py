# exercise: scalar-loss-fix
"""Variant of scalar-loss-fix: float32 tensors (torch's default), and backward(torch.ones_like(out)) for the sum,
which is the same gradient."""

import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    out = f(w)
    out.backward(torch.ones_like(out))
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(float(w), requires_grad=True)
    b = torch.tensor(float(b), requires_grad=True)
    residual = w * torch.tensor(kg) + b - torch.tensor(price)
    loss = (residual**2).sum() / residual.numel()
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
