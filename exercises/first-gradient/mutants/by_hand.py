# exercise: first-gradient
"""Mutant of first-gradient.

mistake: derivatives-by-hand
hint: the exercise is to let autograd find the gradients: call loss.backward() and read w.grad and b.grad.
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
    loss = (a - y) ** 2
    slope = 2 * (a - y) * a * (1 - a)  # worked out by hand
    return loss.item(), (slope * x).item(), slope.item()
