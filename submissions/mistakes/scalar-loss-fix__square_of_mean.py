# exercise: scalar-loss-fix
# Mistake: in batch_grads the parentheses are in the wrong place: the loss is the square of the
# mean error, (w * kg + b - price).mean() ** 2, not the mean of the squared errors, so the loss
# and both gradients are wrong. grads_of_sum is fine.
import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    out = f(w)
    total = out.sum()
    total.backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(float(w), requires_grad=True)
    b = torch.tensor(float(b), requires_grad=True)
    kg = torch.tensor(kg)
    price = torch.tensor(price)
    loss = (w * kg + b - price).mean() ** 2
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
