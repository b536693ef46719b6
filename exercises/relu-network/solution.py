# exercise: relu-network
"""Exercise relu-network: let autograd find the ReLU network's gradients (solution)."""

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
    return L.item(), w1.grad.item(), w2.grad.item()
