# exercise: first-gradient
"""Mutant of first-gradient.

mistake: wrong-loss
hint: the loss is the squared error (a - y) ** 2; without the square its gradient has no factor 2(a - y).
"""

import torch


def neuron_grads(x, y, w, b):
    """Loss and gradients of one sigmoid neuron: loss = (sigmoid(w * x + b) - y) ** 2.

    Returns (loss, dL/dw, dL/db) as plain Python floats, computed with loss.backward().
    """
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    a = torch.sigmoid(w * x + b)
    loss = a - y
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
