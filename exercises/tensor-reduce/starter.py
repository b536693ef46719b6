# exercise: tensor-reduce
"""Exercise tensor-reduce: reductions for a tensor autograd engine.

Implement Tensor.sum, Tensor.mean and Tensor.max (marked TODO), each over axis=None (everything),
an int or a tuple of ints, with or without keepdims, as numpy reduces. Tie rule for max: tied
maxima share the gradient equally. The element-wise operations (with broadcasting) are given.
"""

import numpy as np


def unbroadcast(grad, shape):
    """Sum a gradient down to `shape`: the adjoint of numpy's broadcasting.

    Broadcasting adds axes in front and stretches axes of size 1, so sum over the axes it added,
    then over the stretched ones, keeping them (as size 1).
    """
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
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

    def sum(self, axis=None, keepdims=False):
        # return the sum over `axis` (None: all axes) as a new Tensor. Its _backward spreads out.grad
        # over the summed axes: without keepdims, put them back first (np.expand_dims), then
        # np.broadcast_to(g, self.shape).
        raise NotImplementedError("tensor-reduce: implement Tensor.sum")

    def mean(self, axis=None, keepdims=False):
        # return the mean over `axis`: a sum, times 1 / N, N being how many numbers each mean
        # averages.
        raise NotImplementedError("tensor-reduce: implement Tensor.mean")

    def max(self, axis=None, keepdims=False):
        # return the maximum over `axis`; its _backward gives out.grad to the maxima only (tied maxima
        # share it equally) and 0 elsewhere.
        raise NotImplementedError("tensor-reduce: implement Tensor.max")

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
