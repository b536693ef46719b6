# exercise: scalar-loss-fix
# Keeps backward() on the vectors and passes the weights of the reduction instead:
# ones for a sum, 1/N each for a mean. float32 tensors.
import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    out = f(w)
    out.backward(torch.ones_like(out))  # the same as out.sum().backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    errors = (w * torch.tensor(kg) + b - torch.tensor(price)) ** 2
    errors.backward(torch.full_like(errors, 1 / len(kg)))  # the same as errors.mean().backward()
    return errors.mean().item(), w.grad.item(), b.grad.item()
