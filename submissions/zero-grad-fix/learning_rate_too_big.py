# exercise: zero-grad-fix
# Clears the gradients properly, but uses its own learning rate of 0.5 instead of lr: every step
# overshoots further, w and b blow up to infinity and the losses end as nan.
import torch


def fit(kg, price, steps=2000, lr=0.05):
    lr = 0.5  # "faster training"
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for _ in range(steps):
        w.grad = None
        b.grad = None
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        losses.append(loss.item())
    return w.item(), b.item(), losses
