# exercise: custom-sigmoid
# Derives the slope from e^-x but drops the square in the denominator:
# d/dx 1/(1+e^-x) = e^-x / (1+e^-x)^2, and this writes e^-x / (1+e^-x), which is 1 - s.
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e = torch.exp(-x)
        ctx.save_for_backward(e)
        return 1 / (1 + e)

    @staticmethod
    def backward(ctx, grad_output):
        e, = ctx.saved_tensors
        return grad_output * e / (1 + e)
