# exercise: zero-grad-fix
"""Exercise zero-grad-fix: a training loop whose gradients pile up.

This is Priya's vegetable-price loop from the Autograd lesson: learn a rate per kilogram w and a
delivery charge b so that price = w * kg + b. But one line of the lesson went missing.

The contract, which the grader checks:

    fit(kg, price, steps=2000, lr=0.05) -> (w, b, losses)

- kg and price are 1-D float tensors of the same length;
- w and b start at 0.0; each of the `steps` steps computes
  loss = ((w * kg + b - price) ** 2).mean(), with the weights as they are *before* that step's
  update, calls loss.backward(), and updates w -= lr * w.grad, b -= lr * b.grad under
  torch.no_grad();
- w and b are returned as Python floats (.item()), and losses as a list of Python floats, one per
  step: losses[0] is the loss before any update.

On the lesson's data (kg 0.5, 1.0, 1.5, 2.0, 3.0; price 40, 60, 79, 101, 139) the lesson prints

    step    1: loss  8192.600, w  16.35, b   8.38
    step   10: loss     1.098, w  39.49, b  20.22
    step 2000: loss     0.516, w  39.76, b  20.19

(fit(kg, price, steps=10) returns the w and b after ten steps, and losses[9] is the loss at step 10).

What goes wrong: the code below runs without an error, and steps 1 and 2 are right. But at step 3
the loss is far lower than the lesson's, and then it swings back up into the thousands, again and
again; w and b never settle. Find out why, and fix it. The grader checks the losses along the
way and the final w and b, on the lesson's data and on new prices.
"""

import torch


def fit(kg, price, steps=2000, lr=0.05):
    """Return (w, b, losses) after `steps` steps of gradient descent on mean((w * kg + b - price) ** 2)."""
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    losses = []
    for step in range(steps):
        loss = ((w * kg + b - price) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        losses.append(loss.item())
    return w.item(), b.item(), losses
