# exercise: no-grad-fix
# Ignores lr and takes steps of 0.5 "to get there faster": x overshoots the valley and runs off
# downhill towards minus infinity.
import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(x0, requires_grad=True)
    for _ in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        with torch.no_grad():
            x -= 0.5 * x.grad
        x.grad = None
    return x.item()
