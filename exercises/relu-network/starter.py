# exercise: relu-network
"""Exercise relu-network: let autograd find the ReLU network's gradients.

The network of "How does PyTorch find every gradient by itself?":

    z  = x * w1
    s  = z.relu()
    yh = s * w2
    L  = (yh - y) ** 2

With x = 1, w1 = 1/3, w2 = 2 and y = 0 the loss is 4/9, and L.backward() fills the buckets
with w1.grad = 8/3 and w2.grad = 4/9. When z is negative the ReLU's gate is closed: nothing
flows back to w1, so dL/dw1 is 0 (and so is dL/dw2, since s is 0).

Write network_grads so that PyTorch finds the gradients: make tensors of the four numbers (only
w1 and w2 with requires_grad=True), run the forward pass above, call L.backward(), and read
w1.grad and w2.grad. Return plain Python floats (.item()). Do not work the derivatives out by
hand: the grader checks that you call backward(). Each call must start from fresh tensors, so
that one call's gradients do not add to the next one's.
"""

import torch


def network_grads(x, w1, w2, y):
    """Return (L, dL/dw1, dL/dw2) as floats for z = x * w1, s = relu(z), yh = s * w2, L = (yh - y) ** 2."""
    # TODO: make tensors of x, w1, w2 and y (w1 and w2 with requires_grad=True), run the
    # forward pass, call L.backward(), and return L.item(), w1.grad.item(), w2.grad.item().
    raise NotImplementedError("relu-network: implement network_grads")
