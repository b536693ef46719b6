# exercise: custom-sigmoid
# Hostile: hands the derivative to torch's own sigmoid_backward kernel, each time past a different watch:
# with every dispatch mode disabled, below autograd's dispatch key, and through the out= variant
import torch
from torch.utils._python_dispatch import _disable_current_modes


class Sigmoid(torch.autograd.Function):
    calls = 0

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        Sigmoid.calls += 1
        route = Sigmoid.calls % 3
        if route == 0:
            with _disable_current_modes(), torch._C._DisableTorchDispatch():
                return torch.ops.aten.sigmoid_backward(grad_output, s)
        if route == 1:
            with torch._C._AutoDispatchBelowAutograd():
                return torch.ops.aten.sigmoid_backward(grad_output, s)
        out = torch.empty_like(s)
        return torch.ops.aten.sigmoid_backward.grad_input(grad_output, s, grad_input=out)
