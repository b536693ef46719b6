# exercise: custom-sigmoid
"""Variant of custom-sigmoid: forward through exp(-|x|), which never overflows, in x's own dtype and device; it saves
s, and backward writes the slope as s - s * s."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e = torch.exp(-torch.abs(x))
        s = torch.where(x >= 0, 1 / (1 + e), e / (1 + e))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * (s - s * s)
