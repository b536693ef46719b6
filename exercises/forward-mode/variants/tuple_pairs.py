# exercise: forward-mode
"""Variant of forward-mode: a plain number becomes Dual(number, 0.0) first, so each rule is written once, on two
duals; the product rule and the power rule written in the other order."""

import math


def _dual(x):
    return x if isinstance(x, Dual) else Dual(float(x), 0.0)


class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __add__(self, other):
        other = _dual(other)
        return Dual(other.value + self.value, other.deriv + self.deriv)

    def __radd__(self, other):
        return _dual(other) + self

    def __mul__(self, other):
        other = _dual(other)
        return Dual(other.value * self.value, other.value * self.deriv + other.deriv * self.value)

    def __rmul__(self, other):
        return _dual(other) * self

    def __pow__(self, n):
        return Dual(self.value**n, self.deriv * n * self.value ** (n - 1))

    def sigmoid(self):
        s = 1.0 / (1.0 + math.exp(-self.value))
        return Dual(s, self.deriv * s * (1.0 - s))
