# exercise: scalar-loss-fix
# Calls backward() once per element, keeping the graph alive in between. The gradients add up,
# which is exactly the sum: right for grads_of_sum, N times too large for the batch's mean.
import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    out = f(w).reshape(-1)
    for element in out:
        element.backward(retain_graph=True)
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    errors = (w * torch.tensor(kg) + b - torch.tensor(price)) ** 2
    for error in errors:
        error.backward(retain_graph=True)
    return errors.mean().item(), w.grad.item(), b.grad.item()
