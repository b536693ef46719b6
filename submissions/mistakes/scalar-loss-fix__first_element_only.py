# exercise: scalar-loss-fix
# Mistake: to get "a single number" the student indexes the first element, out[0] and loss[0],
# so backward() only sees one of the values: only the first gradient is non-zero in
# grads_of_sum, and batch_grads returns the first example's error and gradients.
import torch


def grads_of_sum(f, values):
    w = torch.tensor(values, requires_grad=True)
    out = f(w)
    out.reshape(-1)[0].backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    kg, price = torch.tensor(kg), torch.tensor(price)
    loss = (w * kg + b - price) ** 2
    loss[0].backward()
    return loss[0].item(), w.grad.item(), b.grad.item()
