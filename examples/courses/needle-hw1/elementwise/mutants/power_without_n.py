"""Mutant of elementwise.

mistake: power-slope-without-n
hint: The derivative of a ** n is n * a ** (n - 1): multiply by n (self.scalar) as well.
"""


class PowerScalar:
    def gradient(self, out_grad, node):
        base = node.inputs[0]
        return out_grad * (base ** (self.scalar - 1))
