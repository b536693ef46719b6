# exercise: relu-network
"""Mutant of relu-network.

mistake: grads-accumulate
hint: .grad adds up across backward() calls: make fresh tensors for w1 and w2 in every call (or clear their .grad first), or each call's gradients include all the earlier ones.
"""

import torch

# Made once and reused, so each call's backward() adds to the last call's gradients.
_w1 = torch.zeros((), dtype=torch.float64, requires_grad=True)
_w2 = torch.zeros((), dtype=torch.float64, requires_grad=True)


def network_grads(x, w1, w2, y):
    with torch.no_grad():
        _w1.fill_(w1)
        _w2.fill_(w2)
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    z = x * _w1
    s = z.relu()
    yh = s * _w2
    L = (yh - y) ** 2
    L.backward()
    return L.item(), _w1.grad.item(), _w2.grad.item()
