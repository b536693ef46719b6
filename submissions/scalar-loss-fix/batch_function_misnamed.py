# exercise: scalar-loss-fix
# Both fixes are right, but the second function is called batch_gradients, not batch_grads.
import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    f(w).sum().backward()
    return w.grad.tolist()


def batch_gradients(w, b, kg, price):
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    loss = ((w * torch.tensor(kg) + b - torch.tensor(price)) ** 2).mean()
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
