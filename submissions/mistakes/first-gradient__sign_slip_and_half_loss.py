# exercise: first-gradient
# Two mistakes: the sigmoid is typed by hand as 1 / (1 + exp(+z)) (the minus sign in e^-z is
# lost), and the loss carries the textbook 1/2 factor, 0.5 * (a - y) ** 2, which halves every
# gradient.
import torch


def sigmoid(z):
    return 1 / (1 + torch.exp(z))


def neuron_grads(x, y, w, b):
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    a = sigmoid(w * x + b)
    loss = 0.5 * (a - y) ** 2
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
