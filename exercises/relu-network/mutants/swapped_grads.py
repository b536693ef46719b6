# exercise: relu-network
"""Mutant of relu-network.

mistake: swapped-weight-grads
hint: return the gradients in the order of the contract, (L, w1.grad, w2.grad): dL/dw1 flows through the ReLU and x, dL/dw2 is 2 (yh - y) times s.
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
    L.backward()
    return L.item(), w2.grad.item(), w1.grad.item()
