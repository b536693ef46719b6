# exercise: tensor-reduce
"""Mutant of tensor-reduce.

mistake: keepdims-expanded-again
hint: with keepdims=True the reduced axes are still there in out.grad (as size 1): put them back only
when keepdims is False, or the gradient gets an axis too many and no longer reshapes or broadcasts to
the input's shape.
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
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def _backward():
            g = out.grad
            axes = range(self.data.ndim) if axis is None else np.atleast_1d(axis)
            g = np.expand_dims(g, tuple(a % self.data.ndim for a in axes))  # even where keepdims kept them
            self._accumulate(np.broadcast_to(g, self.shape).copy())

        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        # a sum divided by how many numbers each result averages
        count = self.data.size // np.sum(self.data, axis=axis, keepdims=keepdims).size
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / count)

    def max(self, axis=None, keepdims=False):
        # Tie rule: maxima that are tied share the gradient equally (as torch.amax does).
        top = self.data.max(axis=axis, keepdims=True)
        out = Tensor(self.data.max(axis=axis, keepdims=keepdims), (self,))

        def _backward():
            mask = self.data == top
            share = mask / mask.sum(axis=axis, keepdims=True)
            g = out.grad if keepdims else np.expand_dims(
                out.grad, tuple(range(self.data.ndim)) if axis is None else axis)
            self._accumulate(share * g)

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
