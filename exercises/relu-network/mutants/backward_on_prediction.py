# exercise: relu-network
"""Mutant of relu-network.

mistake: backward-on-the-wrong-node
hint: call backward() on the loss L, the last number computed; yh.backward() gives the prediction's gradients, without the factor 2 (yh - y) that the squared error adds.
"""

import torch


def network_grads(x, w1, w2, y):
    """Loss and gradients of the lesson's network, found with L.backward().

    z = x * w1, s = relu(z), yh = s * w2, L = (yh - y) ** 2. Returns (L, dL/dw1, dL/dw2) as
    plain Python floats.
    """
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    w1 = torch.tensor(w1, dtype=torch.float64, requires_grad=True)
    w2 = torch.tensor(w2, dtype=torch.float64, requires_grad=True)
    z = x * w1
    s = z.relu()
    yh = s * w2
    L = (yh - y) ** 2
    yh.backward()
    return L.item(), w1.grad.item(), w2.grad.item()
