"""Mutant of elementwise.

mistake: scalar-quotient-multiplies
hint: a / k has slope 1 / k: divide out_grad by the scalar, do not multiply by it.
"""


class DivScalar:
    def gradient(self, out_grad, node):
        return out_grad * self.scalar
