# exercise: zero-grad-fix
# Mistake (partial): the student clears w.grad after each update but forgets b.grad, so w is
# updated with fresh gradients while b's gradients still pile up across steps.
import torch


def fit(kg, price, steps=2000, lr=0.05):
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for step in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        losses.append(loss.item())
    return w.item(), b.item(), losses
