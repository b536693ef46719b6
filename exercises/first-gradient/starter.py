# exercise: first-gradient
"""Exercise first-gradient: let autograd find a neuron's gradients.

The single neuron of the lessons: a = sigmoid(w * x + b), loss = (a - y) ** 2. With x = 1.5,
y = 1, w = 0.4 and b = -0.2 it prints loss = 0.1611, dL/dw = -0.2893, dL/db = -0.1928.

Write neuron_grads so that PyTorch finds the gradients: mark w and b with requires_grad=True,
compute the loss, call loss.backward(), and read w.grad and b.grad. Return plain Python floats
(.item()). Do not work the derivatives out by hand: the grader checks that you call backward().
"""

import torch


def neuron_grads(x, y, w, b):
    """Return (loss, dL/dw, dL/db) as floats for loss = (sigmoid(w * x + b) - y) ** 2."""
    # TODO: make tensors of the four numbers (w and b with requires_grad=True), compute the
    # loss, call backward(), and return loss.item(), w.grad.item(), b.grad.item().
    raise NotImplementedError("first-gradient: implement neuron_grads")
