# exercise: scalar-loss-fix
# Mistake (partial): the student reduces with .mean() in both functions. That is right for
# batch_grads, but grads_of_sum must take the gradient of the SUM, so its gradients come out
# N times too small.
import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    out = f(w)
    out.mean().backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    kg, price = torch.tensor(kg), torch.tensor(price)
    loss = ((w * kg + b - price) ** 2).mean()
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
