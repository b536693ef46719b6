# exercise: custom-sigmoid
# Mistake: the slope is written as s alone (the student remembered "the derivative is built from
# s" but dropped the (1 - s) factor), so backward returns grad_output * s.
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        out, = ctx.saved_tensors
        return grad_output * out
