# exercise: custom-sigmoid
"""Mutant of custom-sigmoid.

mistake: broadcast-shape
hint: backward must return a gradient of exactly x's shape, element by element (grad_output * s * (1 - s)); PyTorch silently sums a larger, broadcastable gradient down to x's shape, which gives wrong numbers without any error.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        # A column of upstream gradients times a row of slopes: an outer product, not elementwise.
        return grad_output.unsqueeze(-1) * (s * (1 - s))
