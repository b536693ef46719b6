# exercise: custom-sigmoid
"""Exercise custom-sigmoid: the sigmoid as a torch.autograd.Function (solution)."""

import torch


class Sigmoid(torch.autograd.Function):
    """s = 1 / (1 + e^-x), element by element, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        """Return sigmoid(x), same shape, dtype and device as x; save the output for backward."""
        s = 1 / (1 + torch.exp(-x))  # stays on x's device, in x's dtype
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        """Return dL/dx = grad_output * s * (1 - s), one gradient of x's shape."""
        (s,) = ctx.saved_tensors
        return grad_output * s * (1 - s)
