# exercise: custom-sigmoid
"""Exercise custom-sigmoid: write the sigmoid as your own torch.autograd.Function.

PyTorch lets you add an operation with a hand-written backward by subclassing
torch.autograd.Function and writing two static methods:

    forward(ctx, x)            computes the output from the input tensor x. Anything backward will
                               need goes on ctx: ctx.save_for_backward(tensor), read back in
                               backward as ctx.saved_tensors.
    backward(ctx, grad_output) receives dL/d(output), a tensor of the output's shape, and returns
                               dL/dx: exactly ONE gradient (forward has one tensor input), of
                               exactly x's shape.

You never call forward or backward yourself: Sigmoid.apply(x) runs forward and records the node,
and loss.backward() calls your backward with the gradient arriving from above.

For s = sigmoid(x) = 1 / (1 + e^-x), ds/dx = s * (1 - s), written with the OUTPUT s. So:
  * save the output s (not x) in forward;
  * multiply by grad_output in backward: the gradient from above is rarely all ones;
  * return one tensor of x's shape. PyTorch silently sums a gradient of a larger, broadcastable
    shape down to x's shape, so such a mistake shows up as wrong numbers, not as an error.

Keep everything in x's dtype and on x's device (no torch.tensor(...) or torch.ones(...) made on
the CPU, no .float()): the grader runs torch.autograd.gradcheck in float64, and runs the checks
on a GPU too where there is one.
"""

import torch


class Sigmoid(torch.autograd.Function):
    """s = 1 / (1 + e^-x), element by element, with a hand-written backward. Use Sigmoid.apply(x)."""

    @staticmethod
    def forward(ctx, x):
        """Return sigmoid(x) (same shape, dtype and device as x) and save what backward needs."""
        # TODO: compute s, save what backward will need, and return s.
        raise NotImplementedError("custom-sigmoid: implement Sigmoid.forward")

    @staticmethod
    def backward(ctx, grad_output):
        """Return dL/dx: grad_output times the local slope s * (1 - s), a tensor of x's shape."""
        # TODO: read back what forward saved, and return the gradient with respect to x.
        raise NotImplementedError("custom-sigmoid: implement Sigmoid.backward")
