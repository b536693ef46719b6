# exercise: custom-sigmoid
"""Mutant of custom-sigmoid.

mistake: ignores-grad-output
hint: backward receives dL/d(output) as grad_output and must return grad_output * s * (1 - s); returning the local slope alone is right only when the output is summed (upstream gradient all ones).
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
        return s * (1 - s)
