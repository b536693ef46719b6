# exercise: no-grad-fix
# The update is fixed, but the loop counts from 1 and so takes one step fewer than asked.
import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(x0, requires_grad=True)
    for step in range(1, steps):
        f = x ** 3 - 4 * x
        f.backward()
        with torch.no_grad():
            x -= lr * x.grad
        x.grad = None
    return x.item()
