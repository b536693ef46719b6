# exercise: tensor-elementwise
"""Mutant of tensor-elementwise.

mistake: swapped-locals
hint: each input of x * y gets out.grad times the other input's data: d(x*y)/dx is y, not x.
"""

import numpy as np


class Tensor:
    """An array that remembers how it was made, so that backward() can find every gradient.

    Tensor(data) holds a float64 numpy array in .data; .grad is None until backward() reaches it,
    then an array of the same shape. Each operation makes a new Tensor with its inputs (_parents)
    and a _backward function that sends out.grad on to them.
    """

    def __init__(self, data, _parents=()):
        self.data = np.array(data, dtype=np.float64)
        self.grad = None
        self._parents = _parents
        self._backward = lambda: None

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        return f"Tensor({self.data}, grad={self.grad})"

    def _accumulate(self, g):
        # a tensor used twice gets both contributions; a leaf keeps adding over backward() calls
        self.grad = g if self.grad is None else self.grad + g

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Tensor) else Tensor(x)

    def __add__(self, other):  # self + other
        other = Tensor._lift(other)
        out = Tensor(self.data + other.data, (self, other))

        def _backward():
            self._accumulate(out.grad)
            other._accumulate(out.grad)

        out._backward = _backward
        return out

    def __sub__(self, other):  # self - other
        other = Tensor._lift(other)
        out = Tensor(self.data - other.data, (self, other))

        def _backward():
            self._accumulate(out.grad)
            other._accumulate(-out.grad)

        out._backward = _backward
        return out

    def __mul__(self, other):  # self * other
        other = Tensor._lift(other)
        out = Tensor(self.data * other.data, (self, other))

        def _backward():
            self._accumulate(out.grad * self.data)
            other._accumulate(out.grad * other.data)

        out._backward = _backward
        return out

    def __truediv__(self, other):  # self / other
        other = Tensor._lift(other)
        out = Tensor(self.data / other.data, (self, other))

        def _backward():
            self._accumulate(out.grad / other.data)
            other._accumulate(-out.grad * self.data / other.data**2)

        out._backward = _backward
        return out

    def __neg__(self):  # -self
        out = Tensor(-self.data, (self,))

        def _backward():
            self._accumulate(-out.grad)

        out._backward = _backward
        return out

    def __pow__(self, n):  # self ** n, for a plain number n
        out = Tensor(self.data**n, (self,))

        def _backward():
            self._accumulate(out.grad * n * self.data ** (n - 1))

        out._backward = _backward
        return out

    def exp(self):
        e = np.exp(self.data)
        out = Tensor(e, (self,))

        def _backward():
            self._accumulate(out.grad * e)

        out._backward = _backward
        return out

    def log(self):
        out = Tensor(np.log(self.data), (self,))

        def _backward():
            self._accumulate(out.grad / self.data)

        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(np.maximum(self.data, 0.0), (self,))

        def _backward():
            self._accumulate(out.grad * (self.data > 0))

        out._backward = _backward
        return out

    def backward(self, grad=None):
        """Every gradient of this tensor: seeded with ones for a single number, otherwise with `grad`."""
        if grad is None:
            if self.data.size != 1:
                raise ValueError("backward() of a tensor with more than one element needs a gradient")
            grad = np.ones_like(self.data)
        order, seen = [], set()

        def visit(t):  # inputs before outputs
            if id(t) not in seen:
                seen.add(id(t))
                for parent in t._parents:
                    visit(parent)
                order.append(t)

        visit(self)
        for t in order:  # only the leaves keep what earlier backward() calls gave them
            if t._parents:
                t.grad = None
        self._accumulate(np.array(grad, dtype=np.float64))
        for t in reversed(order):  # outputs first: each grad is complete before it is passed on
            t._backward()
