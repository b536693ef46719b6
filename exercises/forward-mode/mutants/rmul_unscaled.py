# exercise: forward-mode
"""Mutant of forward-mode.

mistake: rmul-derivative-unscaled
hint: c * x with the number on the left goes through __rmul__, and its derivative is c * x', like x * c: __rmul__ must scale the derivative too (simplest: return self * other).
"""

import math


class Dual:
    """A dual number value + deriv * eps, with eps ** 2 = 0: a value and its derivative together."""

    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __repr__(self):
        return f"Dual({self.value!r}, {self.deriv!r})"

    @staticmethod
    def _lift(other):
        """A plain number is a constant: its derivative is 0."""
        return other if isinstance(other, Dual) else Dual(other, 0.0)

    def __add__(self, other):
        other = Dual._lift(other)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __radd__(self, other):  # number + Dual
        return self + other

    def __mul__(self, other):
        other = Dual._lift(other)
        # product rule: (u v)' = u' v + u v'
        return Dual(self.value * other.value, self.deriv * other.value + self.value * other.deriv)

    def __rmul__(self, other):  # number * Dual
        return Dual(other * self.value, self.deriv)

    def __pow__(self, n):
        # n is a plain number: (u ** n)' = n * u ** (n - 1) * u'
        return Dual(self.value ** n, n * self.value ** (n - 1) * self.deriv)

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        # ds/du = s * (1 - s), with the output s, times the incoming derivative u'
        return Dual(s, s * (1 - s) * self.deriv)
