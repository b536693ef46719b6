# exercise: zero-grad-fix
# Mistake: the gradients are now cleared every step, but the loss was rewritten with .sum()
# instead of .mean(), so every gradient (and step) is N times too large for lr = 0.05 and the
# loop blows up instead of settling.
import torch


def fit(kg, price, steps=2000, lr=0.05):
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for step in range(steps):
        w.grad = None
        b.grad = None
        loss = ((w * kg + b - price) ** 2).sum()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        losses.append(loss.item())
    return w.item(), b.item(), losses
