"""Mutant of scalar.

mistake: greater-than-not-flipped
hint: x > y is y < x: apply LT with the operands exchanged.
"""


class Scalar:
    def __gt__(self, b):
        return LT.apply(self, b)
