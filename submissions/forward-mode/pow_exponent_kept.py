# exercise: forward-mode
# The power rule with the exponent left as it was: n * u ** n * u' instead of n * u ** (n - 1) * u'.
import math


class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def _const(self, c):
        return c if isinstance(c, Dual) else Dual(c, 0.0)

    def __add__(self, other):
        other = self._const(other)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __radd__(self, other):
        return self._const(other) + self

    def __mul__(self, other):
        other = self._const(other)
        return Dual(self.value * other.value, self.deriv * other.value + self.value * other.deriv)

    def __rmul__(self, other):
        return self._const(other) * self

    def __pow__(self, n):
        return Dual(self.value ** n, n * self.value ** n * self.deriv)

    def sigmoid(self):
        s = 1.0 / (1.0 + math.exp(-self.value))
        return Dual(s, s * (1.0 - s) * self.deriv)
