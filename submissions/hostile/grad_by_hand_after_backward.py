# exercise: first-gradient
# Hostile: runs a backward() that computes nothing useful, then writes the right gradients into .grad by hand
import torch


def neuron_grads(x, y, w, b):
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    a = torch.sigmoid(w * x + b)
    loss = (a - y) ** 2
    (w * 0 + b * 0).backward()  # autograd ran, as the rule asks
    with torch.no_grad():
        slope = 2 * (a - y) * a * (1 - a)
        w.grad = slope * x
        b.grad = slope.clone()
    return loss.item(), w.grad.item(), b.grad.item()
