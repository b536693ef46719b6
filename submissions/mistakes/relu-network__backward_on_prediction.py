# exercise: relu-network
# Mistake: backward() is called on the prediction yh instead of on the loss L, so the grads are
# dyh/dw1 and dyh/dw2, missing the factor 2 * (yh - y) from the squared error.
import torch


def network_grads(x, w1, w2, y):
    x = torch.tensor(x, dtype=torch.float64)
    w1 = torch.tensor(w1, dtype=torch.float64, requires_grad=True)
    w2 = torch.tensor(w2, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(y, dtype=torch.float64)

    s = torch.relu(x * w1)
    yh = s * w2
    L = (yh - y) ** 2

    yh.backward()
    return L.item(), w1.grad.item(), w2.grad.item()
