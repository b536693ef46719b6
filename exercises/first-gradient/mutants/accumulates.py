# exercise: first-gradient
"""Mutant of first-gradient.

mistake: grads-accumulate
hint: .grad adds up across backward() calls: make fresh tensors for each call (or clear w.grad and b.grad first).
"""

import torch

# Made once and reused, so each call's backward() adds to the last call's gradients.
_w = torch.zeros((), dtype=torch.float64, requires_grad=True)
_b = torch.zeros((), dtype=torch.float64, requires_grad=True)


def neuron_grads(x, y, w, b):
    with torch.no_grad():
        _w.copy_(torch.tensor(w))
        _b.copy_(torch.tensor(b))
    a = torch.sigmoid(_w * x + _b)
    loss = (a - y) ** 2
    loss.backward()
    return loss.item(), _w.grad.item(), _b.grad.item()
