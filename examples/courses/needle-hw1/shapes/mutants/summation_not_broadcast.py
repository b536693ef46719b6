"""Mutant of shapes.

mistake: summation-not-broadcast
hint: Summation's gradient goes to every element that was summed: reshape out_grad to keep the summed axes as
  size 1, then broadcast_to the input's shape.
"""


class Summation:
    def gradient(self, out_grad, node):
        original = node.inputs[0].shape
        axes = range(len(original)) if self.axes is None else self.axes
        kept = list(original)
        for axis in axes:
            kept[axis] = 1
        return reshape(out_grad, tuple(kept))
