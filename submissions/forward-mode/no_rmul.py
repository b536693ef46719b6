# exercise: forward-mode
# No __radd__ or __rmul__: x * 2 and x + 1 work, 2 * x and 1 + x raise TypeError.
import math


class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __add__(self, other):
        if not isinstance(other, Dual):
            other = Dual(other, 0.0)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __mul__(self, other):
        if not isinstance(other, Dual):
            other = Dual(other, 0.0)
        return Dual(self.value * other.value, self.deriv * other.value + self.value * other.deriv)

    def __pow__(self, n):
        return Dual(self.value ** n, n * self.value ** (n - 1) * self.deriv)

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Dual(s, s * (1 - s) * self.deriv)
