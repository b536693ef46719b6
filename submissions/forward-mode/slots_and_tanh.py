# exercise: forward-mode
# A different route to the same rules: __slots__, numbers turned into constants inline,
# the reflected operators as aliases, and the sigmoid written with tanh.
import math


class Dual:
    __slots__ = ("value", "deriv")

    def __init__(self, value, deriv=0.0):
        self.value = float(value)
        self.deriv = float(deriv)

    def __add__(self, other):
        if isinstance(other, Dual):
            return Dual(self.value + other.value, self.deriv + other.deriv)
        return Dual(self.value + other, self.deriv)

    __radd__ = __add__

    def __mul__(self, other):
        if isinstance(other, Dual):
            return Dual(self.value * other.value, self.value * other.deriv + other.value * self.deriv)
        return Dual(self.value * other, self.deriv * other)

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __pow__(self, n):
        outer = self.value ** (n - 1)
        return Dual(outer * self.value, n * outer * self.deriv)

    def sigmoid(self):
        s = 0.5 * (1.0 + math.tanh(0.5 * self.value))
        return Dual(s, self.deriv * s * (1.0 - s))
