# exercise: forward-mode
# Two mistakes: the power rule drops the coefficient n (u**(n - 1) * u' instead of
# n * u**(n - 1) * u'), and the sigmoid's slope is written with the input, u * (1 - u),
# instead of the output, s * (1 - s).
"""Dual numbers for forward-mode differentiation."""

import math
from dataclasses import dataclass


@dataclass
class Dual:
    value: float
    deriv: float = 0.0

    def _other(self, o):
        return o if isinstance(o, Dual) else Dual(o)

    def __add__(self, o):
        o = self._other(o)
        return Dual(self.value + o.value, self.deriv + o.deriv)

    def __radd__(self, o):
        return self + o

    def __mul__(self, o):
        o = self._other(o)
        return Dual(self.value * o.value, self.deriv * o.value + self.value * o.deriv)

    def __rmul__(self, o):
        return self * o

    def __pow__(self, n):
        # chain rule: (u^n)' = u^(n-1) * u'
        return Dual(self.value ** n, self.value ** (n - 1) * self.deriv)

    def sigmoid(self):
        u = self.value
        s = 1 / (1 + math.exp(-u))
        return Dual(s, u * (1 - u) * self.deriv)
