# exercise: custom-sigmoid
# Mistake: backward returns the local slope s * (1 - s) and never multiplies by grad_output,
# so it is only right when the gradient arriving from above is all ones (y.sum().backward()).
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
        return s * (1 - s)
