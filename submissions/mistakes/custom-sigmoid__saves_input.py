# exercise: custom-sigmoid
# Mistake: forward saves the input x instead of the output s, and backward then writes the
# slope as x * (1 - x): the sigmoid's derivative evaluated on the input, not on the output.
import torch


class Sigmoid(torch.autograd.Function):
    """Sigmoid with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 1.0 / (1.0 + torch.exp(-x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_input = grad_output * x * (1 - x)
        return grad_input
