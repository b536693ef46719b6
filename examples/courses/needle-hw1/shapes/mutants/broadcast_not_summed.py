"""Mutant of shapes.

mistake: broadcast-not-summed-back
hint: BroadcastTo's gradient must have the input's shape: sum out_grad over the axes the broadcast added in front
  and over those it stretched from size 1, then reshape to the input's shape.
"""


class BroadcastTo:
    def gradient(self, out_grad, node):
        return out_grad
