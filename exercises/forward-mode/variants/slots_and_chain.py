# exercise: forward-mode
"""Variant of forward-mode: __slots__, a helper that applies the chain rule to any f with its slope, the sigmoid
through exp(-|x|), and powers through that helper."""

import math


class Dual:
    __slots__ = ("value", "deriv")

    def __init__(self, value, deriv=0.0):
        self.value, self.deriv = value, deriv

    def __repr__(self):
        return f"Dual({self.value}, {self.deriv})"

    def _chain(self, value, slope):
        return Dual(value, slope * self.deriv)

    def __add__(self, other):
        if not isinstance(other, Dual):
            return Dual(self.value + other, self.deriv)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    __radd__ = __add__

    def __mul__(self, other):
        if not isinstance(other, Dual):
            return Dual(self.value * other, self.deriv * other)
        return Dual(self.value * other.value, self.value * other.deriv + self.deriv * other.value)

    __rmul__ = __mul__

    def __pow__(self, n):
        return self._chain(self.value**n, n * self.value ** (n - 1))

    def sigmoid(self):
        e = math.exp(-abs(self.value))
        s = 1 / (1 + e) if self.value >= 0 else e / (1 + e)
        return self._chain(s, s - s * s)
