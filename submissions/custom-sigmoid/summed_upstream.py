# exercise: custom-sigmoid
# Multiplies by the total of the upstream gradient instead of by each element of it:
# right for a 0-d x, wrong as soon as x has more than one element.
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        s, = ctx.saved_tensors
        return grad_output.sum() * s * (1 - s)
