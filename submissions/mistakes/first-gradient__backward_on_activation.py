# exercise: first-gradient
# Mistake: the student calls backward() on the neuron's output a (the sigmoid) instead of on
# the loss, so w.grad and b.grad hold da/dw and da/db, not dL/dw and dL/db.
import torch


def neuron_grads(x, y, w, b):
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    z = w * x + b
    a = torch.sigmoid(z)
    loss = (a - y) ** 2
    a.backward()  # "backprop through the neuron"
    return loss.item(), w.grad.item(), b.grad.item()
