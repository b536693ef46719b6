# exercise: custom-sigmoid
"""Mutant of custom-sigmoid.

mistake: slope-from-input
hint: ds/dx = s * (1 - s) is written with the OUTPUT s = sigmoid(x): save s in forward, not x; x * (1 - x) is a different function.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # the input, where backward needs the output
        return 1 / (1 + torch.exp(-x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x * (1 - x)
