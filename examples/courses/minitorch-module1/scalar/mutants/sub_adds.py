"""Mutant of scalar.

mistake: subtraction-adds
hint: x - y is x + (-y): apply Neg to the second operand before adding.
"""


class Scalar:
    def __sub__(self, b):
        return Add.apply(self, b)
