# exercise: relu-network
# The ReLU written as a Python if on the number: at an open gate it is right, but at a closed
# gate s is a brand-new tensor, w1 never enters the graph, and w1.grad stays None.
import torch


def network_grads(x, w1, w2, y):
    x, y = torch.tensor(x), torch.tensor(y)
    w1 = torch.tensor(w1, requires_grad=True)
    w2 = torch.tensor(w2, requires_grad=True)
    z = x * w1
    if z.item() > 0:
        s = z
    else:
        s = torch.tensor(0.0)
    yh = s * w2
    L = (yh - y) ** 2
    L.backward()
    return L.item(), w1.grad.item(), w2.grad.item()
