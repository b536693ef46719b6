# exercise: custom-sigmoid
# Saves the input and recomputes the sigmoid in backward (fine, as long as the slope uses s),
# with a forward that never takes exp of a large positive number.
import torch


def _sigmoid(x):
    e = torch.exp(-x.abs())  # at most 1: no overflow for either sign
    return torch.where(x >= 0, 1 / (1 + e), e / (1 + e))


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        s = _sigmoid(x)
        return (grad_output * (s - s * s),)
