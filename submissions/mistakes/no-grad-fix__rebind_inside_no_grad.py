# exercise: no-grad-fix
# Mistake: the update is moved under torch.no_grad() but written x = x - lr * x.grad, which
# rebinds x to a new tensor made without gradient tracking; the next step's f no longer
# requires grad, so backward() fails from the second step on. (Also x.grad = None then only
# clears the new tensor's attribute.)
import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(x0, requires_grad=True)
    for _ in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        with torch.no_grad():
            x = x - lr * x.grad
        x.grad = None
    return x.item()
