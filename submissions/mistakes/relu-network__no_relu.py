# exercise: relu-network
# Mistake: the ReLU was left out of the forward pass (yh = z * w2), so the gate never closes:
# the open-gate numbers are right, but where z < 0 the gradients should be 0 and are not.
import torch


def network_grads(x, w1, w2, y):
    x = torch.tensor(x)
    y = torch.tensor(y)
    w1 = torch.tensor(w1, requires_grad=True)
    w2 = torch.tensor(w2, requires_grad=True)
    z = x * w1
    yh = z * w2
    L = (yh - y) ** 2
    L.backward()
    return L.item(), w1.grad.item(), w2.grad.item()
