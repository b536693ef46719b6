# exercise: forward-mode
"""Exercise forward-mode: derivatives pushed forward with dual numbers.

Reverse mode (what loss.backward() does) starts from the output and reaches every input in one
sweep. Forward mode goes the other way: every number carries its derivative along with its
value, and each operation updates both. Write it with dual numbers: Dual(value, deriv) stands for
value + deriv * eps, where eps ** 2 = 0. The deriv is the derivative of the value with respect to
the one input you chose to follow, called the seed:

    x = Dual(3.0, 1.0)    # x = 3, and dx/dx = 1: the seed
    y = x * x             # y.value == 9.0, y.deriv == 6.0, since d(x*x)/dx = 2x = 6

The rules, for u and v Duals and c, n plain numbers:
    u + v      value u + v,          deriv u' + v'
    u * v      value u * v,          deriv u' * v + u * v'          (the product rule: both terms)
    u ** n     value u ** n,         deriv n * u ** (n - 1) * u'     (n is a plain number)
    sigmoid(u) value s = 1/(1+e^-u), deriv s * (1 - s) * u'         (the slope uses the output s)
A plain number c is a constant, Dual(c, 0.0): its derivative is 0. So 2 * x, x * 2, 1 + x and
x + 1 must all work; the two with the number on the left go through __rmul__ and __radd__.

A function of two inputs f(x, y) needs two forward passes for its two partial derivatives:
one with x seeded (Dual(a, 1.0), Dual(b, 0.0)), one with y seeded (Dual(a, 0.0), Dual(b, 1.0)).
One pass per input: that is why training, with one loss and millions of weights, uses reverse
mode. Plain Python and math only: the derivative rules are the exercise, and torch is not
there when your class is graded.
"""

import math


class Dual:
    """value + deriv * eps with eps ** 2 = 0. Read the results as .value and .deriv (plain floats)."""

    def __init__(self, value, deriv=0.0):
        self.value = value  # the number itself
        self.deriv = deriv  # its derivative with respect to the seeded input

    def __repr__(self):
        return f"Dual({self.value!r}, {self.deriv!r})"

    def __add__(self, other):
        """self + other, where other is a Dual or a plain number (a constant, derivative 0)."""
        # TODO: return a new Dual with the sum of the values and the sum of the derivatives.
        raise NotImplementedError("forward-mode: implement Dual.__add__")

    def __radd__(self, other):
        """other + self, for a plain number other (Python calls this for 1 + x)."""
        # TODO
        raise NotImplementedError("forward-mode: implement Dual.__radd__")

    def __mul__(self, other):
        """self * other, where other is a Dual or a plain number: the product rule."""
        # TODO: value self.value * other.value; derivative by the product rule, both terms.
        raise NotImplementedError("forward-mode: implement Dual.__mul__")

    def __rmul__(self, other):
        """other * self, for a plain number other (Python calls this for 2 * x)."""
        # TODO
        raise NotImplementedError("forward-mode: implement Dual.__rmul__")

    def __pow__(self, n):
        """self ** n for a plain number n (2, 3, -1, ...): the power rule times self.deriv."""
        # TODO
        raise NotImplementedError("forward-mode: implement Dual.__pow__")

    def sigmoid(self):
        """sigmoid(self): value s = 1 / (1 + e^-value), derivative s * (1 - s) * self.deriv."""
        # TODO: use math.exp; the slope is written with the output s, not with the input.
        raise NotImplementedError("forward-mode: implement Dual.sigmoid")
