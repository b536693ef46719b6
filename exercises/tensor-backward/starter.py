# exercise: tensor-backward
"""Exercise tensor-backward: the backward pass of a tensor autograd engine.

Every operation is given. Implement Tensor._accumulate and Tensor.backward (marked TODO): seed
the output, order the tensors so that each comes after those it was made from (each once), and
call each one's _backward, outputs first.
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
        # TODO: add g to self.grad, which is None until the first contribution arrives.
        raise NotImplementedError("tensor-backward: implement Tensor._accumulate")

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

    def exp(self):
        e = np.exp(self.data)
        out = Tensor(e, (self,))

        def _backward():
            self._accumulate(out.grad * e)

        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(np.maximum(self.data, 0.0), (self,))

        def _backward():
            self._accumulate(out.grad * (self.data > 0))

        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def _backward():
            g = out.grad
            if not keepdims:  # put the summed axes back, as size 1, so that g spreads over them
                axes = range(self.data.ndim) if axis is None else np.atleast_1d(axis)
                g = np.expand_dims(g, tuple(a % self.data.ndim for a in axes))
            self._accumulate(np.broadcast_to(g, self.shape).copy())

        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        # a sum divided by how many numbers each result averages
        count = self.data.size // np.sum(self.data, axis=axis, keepdims=keepdims).size
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / count)

    def __matmul__(self, other):  # self @ other: 2-D, or batched over leading axes
        other = Tensor._lift(other)
        out = Tensor(self.data @ other.data, (self, other))

        def _backward():
            self._accumulate(unbroadcast(out.grad @ other.data.swapaxes(-1, -2), self.shape))
            other._accumulate(unbroadcast(self.data.swapaxes(-1, -2) @ out.grad, other.shape))

        out._backward = _backward
        return out

    def backward(self, grad=None):
        """Every gradient of this tensor: seeded with ones for a single number, otherwise with `grad`."""
        # TODO: (1) the seed: grad, or ones when grad is None and self holds a single number (raise a
        # ValueError for a bigger tensor without grad); (2) every tensor this one depends on, each
        # once, each after the tensors it was made from (t._parents); (3) reset the grads of the
        # tensors that are not leaves (leaves keep adding over calls), give self the seed with
        # _accumulate, and call t._backward() for each tensor, outputs first.
        raise NotImplementedError("tensor-backward: implement Tensor.backward")
