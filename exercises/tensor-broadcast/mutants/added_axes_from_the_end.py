# exercise: tensor-broadcast
"""Mutant of tensor-broadcast.

mistake: summed-wrong-axis
hint: numpy lines shapes up on the right, so the axes broadcasting adds are in front: sum the
gradient over axis 0 until it has as many axes as the input, not over the last axis.
"""

import numpy as np


def unbroadcast(grad, shape):
    """Sum a gradient down to `shape`: the adjoint of numpy's broadcasting.

    Broadcasting adds axes in front and stretches axes of size 1, so sum over the axes it added,
    then over the stretched ones, keeping them (as size 1).
    """
    while grad.ndim > len(shape):
        grad = grad.sum(axis=-1)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


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
            self._accumulate(unbroadcast(out.grad, self.shape))
            other._accumulate(unbroadcast(out.grad, other.shape))

        out._backward = _backward
        return out

    def __sub__(self, other):  # self - other
        other = Tensor._lift(other)
        out = Tensor(self.data - other.data, (self, other))

        def _backward():
            self._accumulate(unbroadcast(out.grad, self.shape))
            other._accumulate(unbroadcast(-out.grad, other.shape))

        out._backward = _backward
        return out

    def __mul__(self, other):  # self * other
        other = Tensor._lift(other)
        out = Tensor(self.data * other.data, (self, other))

        def _backward():
            self._accumulate(unbroadcast(out.grad * other.data, self.shape))
            other._accumulate(unbroadcast(out.grad * self.data, other.shape))

        out._backward = _backward
        return out

    def __truediv__(self, other):  # self / other
        other = Tensor._lift(other)
        out = Tensor(self.data / other.data, (self, other))

        def _backward():
            self._accumulate(unbroadcast(out.grad / other.data, self.shape))
            other._accumulate(unbroadcast(-out.grad * self.data / other.data**2, other.shape))

        out._backward = _backward
        return out

    def __neg__(self):  # -self
        out = Tensor(-self.data, (self,))

        def _backward():
            self._accumulate(-out.grad)

        out._backward = _backward
        return out

    def __radd__(self, other):  # other + self, for a plain number or array on the left
        return Tensor._lift(other) + self

    def __rsub__(self, other):  # other - self
        return Tensor._lift(other) - self

    def __rmul__(self, other):  # other * self
        return Tensor._lift(other) * self

    def __rtruediv__(self, other):  # other / self
        return Tensor._lift(other) / self

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
