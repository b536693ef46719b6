# exercise: custom-sigmoid
"""Mutant of custom-sigmoid.

mistake: wrong-gradient-count
hint: backward returns one gradient per input of forward, and forward has one tensor input x: return just grad_output * s * (1 - s), not also a gradient for the output.
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
        return grad_output * s * (1 - s), grad_output  # dL/dx, and "dL/ds" as well
