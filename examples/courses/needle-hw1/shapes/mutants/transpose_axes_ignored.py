"""Mutant of shapes.

mistake: transpose-axes-ignored
hint: Transpose's gradient swaps back the same two axes it swapped: pass self.axes on (transpose(out_grad,
  self.axes)); without them it swaps the last two, which is right only when those were the ones.
"""


class Transpose:
    def gradient(self, out_grad, node):
        return transpose(out_grad)
