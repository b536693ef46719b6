# exercise: zero-grad-fix
# Clears the gradients every step, but keeps w and b from one call of fit to the next,
# so a second call carries on from where the first one stopped instead of starting at 0.
import torch

w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)


def fit(kg, price, steps=2000, lr=0.05):
    losses = []
    for _ in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
            b.sub_(lr * b.grad)
            w.grad.zero_()
            b.grad.zero_()
        losses.append(loss.item())
    return w.item(), b.item(), losses
