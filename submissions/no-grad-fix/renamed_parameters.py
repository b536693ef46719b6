# exercise: no-grad-fix
# Works, but renames the parameters and drops their defaults, so minimize(x0, lr=..., steps=...)
# and minimize() cannot be called as the contract says.
import torch


def minimize(start, learning_rate, n_steps):
    x = torch.tensor(start, requires_grad=True)
    for _ in range(n_steps):
        (x ** 3 - 4 * x).backward()
        with torch.no_grad():
            x -= learning_rate * x.grad
        x.grad = None
    return x.item()
