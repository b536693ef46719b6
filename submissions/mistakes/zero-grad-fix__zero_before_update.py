# exercise: zero-grad-fix
# Mistake: optimizer.zero_grad() is placed between loss.backward() and optimizer.step(), so the
# gradients are wiped before every update and w and b never move from 0.
import torch


def fit(kg, price, steps=2000, lr=0.05):
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    optimizer = torch.optim.SGD([w, b], lr=lr)
    losses = []
    for step in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
    return w.item(), b.item(), losses
