# exercise: zero-grad-fix
# Clears the gradients, but only inside the every-100-steps logging block.
import torch


def fit(kg, price, steps=2000, lr=0.05):
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for step in range(1, steps + 1):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        losses.append(loss.item())
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.3f}")
            w.grad = None
            b.grad = None
    return w.item(), b.item(), losses
