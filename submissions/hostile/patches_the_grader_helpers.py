# exercise: custom-sigmoid
# Hostile: backward returns two gradients for one input; it replaces the helpers probe code calls, where
# it can import them: grader.run.child.probe_tools.gradcheck (and its torch), torch.autograd.gradcheck, math.isclose
import math

import torch

try:
    import grader.run.child.probe_tools as tools

    tools.gradcheck = lambda *a, **k: "passed"
    tools._grad = lambda *a, **k: (None,)
    tools.torch = None
except ImportError:
    pass
torch.autograd.gradcheck = lambda *a, **k: True
math.isclose = lambda *a, **k: True


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s * (1 - s), grad_output
