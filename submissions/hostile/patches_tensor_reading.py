# exercise: custom-sigmoid
# Hostile: the backward forgets (1 - s); it patches how a tensor is read (tolist), so that
# every number the grader reads from a tensor is 0 and the Jacobians gradcheck compares agree
import torch

torch.Tensor.tolist = lambda self: [0.0] * torch.Tensor.numel(self)


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s
