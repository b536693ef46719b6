# exercise: scalar-loss-fix
"""Exercise scalar-loss-fix: backward() on a tensor of many numbers.

backward() with no arguments needs a single number. Both functions below call it on a tensor of
several values, and PyTorch stops them with

    RuntimeError: grad can be implicitly created only for scalar outputs

Fix each one by reducing to one number first. Which reduction is part of the contract, because it
sets the scale of every gradient: a mean over N values gives gradients N times smaller than their
sum.

    grads_of_sum(f, values) -> list of floats

  w = torch.tensor(values, requires_grad=True); out = f(w) is a tensor of w's shape. Return the
  gradient of the SUM out.sum() with respect to w, as w.grad.tolist() (a list of floats, nested
  like values). The Autograd lesson's example: f = lambda w: w * 3 and values [1.0, 2.0] give
  [3.0, 3.0] (it prints tensor([3., 3.])).

    batch_grads(w, b, kg, price) -> (loss, dL_dw, dL_db)

  w and b are numbers, kg and price lists of numbers of the same length. The loss is the MEAN over
  the batch of the squared errors (w * kg + b - price) ** 2, as in the lesson's training loop;
  return it and its gradients with respect to w and b as Python floats. On the lesson's data
  (kg 0.5, 1.0, 1.5, 2.0, 3.0; price 40, 60, 79, 101, 139) at w = b = 0 the loss is 8192.600, and
  one step of 0.05 against the gradients gives w 16.35 and b 8.38.

The grader checks that you call backward().
"""

import torch


def grads_of_sum(f, values):
    """Return the gradient of f(w).sum() with respect to w = tensor(values), as w.grad.tolist()."""
    w = torch.tensor(values, requires_grad=True)
    out = f(w)
    out.backward()
    return w.grad.tolist()


def batch_grads(w, b, kg, price):
    """Return (loss, dL/dw, dL/db) for the mean of the squared errors (w * kg + b - price) ** 2."""
    w = torch.tensor(w, requires_grad=True)
    b = torch.tensor(b, requires_grad=True)
    kg, price = torch.tensor(kg), torch.tensor(price)
    loss = (w * kg + b - price) ** 2
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
