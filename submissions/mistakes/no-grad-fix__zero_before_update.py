# exercise: no-grad-fix
# Mistake: the gradient is cleared at the wrong time, right after backward() and before the
# update, so every step moves x by lr * 0 and x never leaves x0.
import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(x0, requires_grad=True)
    for _ in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        x.grad.zero_()  # clear the gradient for the next step
        with torch.no_grad():
            x -= lr * x.grad
    return x.item()
