# exercise: forward-mode
# Mistake: a plain number is lifted to Dual(c, 1.0) instead of Dual(c, 0.0), so constants
# are treated as if they were the seeded input and add spurious derivative terms.
"""Forward-mode AD with dual numbers: value + deriv * eps, eps ** 2 = 0."""

import math


class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __repr__(self):
        return f"Dual({self.value!r}, {self.deriv!r})"

    @staticmethod
    def lift(x):
        # a plain number becomes a dual number: x + 1 * eps
        if isinstance(x, Dual):
            return x
        return Dual(x, 1.0)

    def __add__(self, other):
        other = Dual.lift(other)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    __radd__ = __add__

    def __mul__(self, other):
        other = Dual.lift(other)
        return Dual(self.value * other.value,
                    self.deriv * other.value + self.value * other.deriv)

    __rmul__ = __mul__

    def __pow__(self, n):
        return Dual(self.value ** n, n * self.value ** (n - 1) * self.deriv)

    def sigmoid(self):
        if self.value >= 0:
            s = 1.0 / (1.0 + math.exp(-self.value))
        else:
            e = math.exp(self.value)
            s = e / (1.0 + e)
        return Dual(s, s * (1.0 - s) * self.deriv)
