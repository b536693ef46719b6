# exercise: relu-network
# Writes the square as ^, which is Python's exclusive or, not a power: torch refuses it on floats.
import torch


def network_grads(x, w1, w2, y):
    x, y = torch.tensor(x), torch.tensor(y)
    w1 = torch.tensor(w1, requires_grad=True)
    w2 = torch.tensor(w2, requires_grad=True)
    yh = (x * w1).relu() * w2
    L = (yh - y) ^ 2
    L.backward()
    return L.item(), w1.grad.item(), w2.grad.item()
