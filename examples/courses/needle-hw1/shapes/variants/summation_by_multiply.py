"""Variant of shapes: Summation's gradient as out_grad, reshaped to keep the summed axes, times a tensor of ones of
the input's shape (broadcast by multiplication, not by BroadcastTo)."""
import numpy


class Summation:
    def gradient(self, out_grad, node):
        original = node.inputs[0].shape
        axes = range(len(original)) if self.axes is None else self.axes
        kept = list(original)
        for axis in axes:
            kept[axis] = 1
        ones = Tensor(numpy.ones(original), requires_grad=False)
        return broadcast_to(reshape(out_grad, tuple(kept)), original) * ones
