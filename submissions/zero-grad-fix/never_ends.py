# exercise: zero-grad-fix
# Trains "until the loss is small" instead of for `steps` steps; the best this line can do on
# the lesson's data is 0.516, so the loop never ends.
import torch


def fit(kg, price, steps=2000, lr=0.05):
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    while not losses or losses[-1] > 0.5:
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
        losses.append(loss.item())
    return w.item(), b.item(), losses
