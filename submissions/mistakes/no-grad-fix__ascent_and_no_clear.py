# exercise: no-grad-fix
# Two mistakes: the update climbs the slope (x += lr * x.grad, gradient ascent, the sign is
# wrong), and the line clearing x.grad was dropped, so every step also uses the sum of all the
# slopes so far.
import torch


def minimize(x0=2.0, lr=0.05, steps=100):
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    for step in range(steps):
        f = x ** 3 - 4 * x
        f.backward()
        with torch.no_grad():
            x += lr * x.grad
    return float(x.item())
