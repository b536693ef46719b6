# exercise: custom-sigmoid
"""Mutant of custom-sigmoid.

mistake: slope-missing-factor
hint: the sigmoid's slope is s * (1 - s), not s: the factor (1 - s) is missing.
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
        return grad_output * s
