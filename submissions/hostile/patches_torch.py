# exercise: first-gradient
# Hostile: patches torch.allclose, torch.testing, gradcheck and Tensor.__eq__, with backward() on the wrong node
import torch

torch.allclose = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
torch.autograd.gradcheck = lambda *a, **k: True
torch.Tensor.__eq__ = lambda self, other: torch.tensor(True)



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
    a.backward()
    return loss.item(), w.grad.item(), b.grad.item()
