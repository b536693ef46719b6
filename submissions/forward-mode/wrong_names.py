# exercise: forward-mode
# Right rules, but the attributes are called .real and .dual, not .value and .deriv.
import math


class Dual:
    def __init__(self, real, dual=0.0):
        self.real = real
        self.dual = dual

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.real + other.real, self.dual + other.dual)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.real * other.real, self.dual * other.real + self.real * other.dual)

    __rmul__ = __mul__

    def __pow__(self, n):
        return Dual(self.real ** n, n * self.real ** (n - 1) * self.dual)

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.real))
        return Dual(s, s * (1 - s) * self.dual)
