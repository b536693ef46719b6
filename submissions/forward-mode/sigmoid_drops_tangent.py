# exercise: forward-mode
# sigmoid() returns the local slope s * (1 - s) as the derivative but never multiplies by the
# derivative coming in: right when sigmoid is applied to the seeded input itself, wrong otherwise.
import math


class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __add__(self, other):
        if not isinstance(other, Dual):
            other = Dual(other)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __radd__(self, other):
        return self.__add__(other)

    def __mul__(self, other):
        if not isinstance(other, Dual):
            other = Dual(other)
        return Dual(self.value * other.value, self.deriv * other.value + self.value * other.deriv)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __pow__(self, n):
        return Dual(self.value ** n, n * self.value ** (n - 1) * self.deriv)

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Dual(s, s * (1 - s))
