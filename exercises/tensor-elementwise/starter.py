# exercise: tensor-elementwise
"""Exercise tensor-elementwise: element-wise operations for a tensor autograd engine.

Implement the operations marked TODO: - * / between tensors of the same shape, unary -, ** by a
number, exp(), log() and relu(). __add__ is done, as an example. Each operation returns a new
Tensor with the result in .data and a _backward that passes out.grad, times the local
derivative, to each input with _accumulate.
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
        # return self - other as a new Tensor; its _backward gives self out.grad and other -out.grad.
        raise NotImplementedError("tensor-elementwise: implement Tensor.__sub__")

    def __mul__(self, other):  # self * other
        # return self * other; each input's local derivative is the other input's data.
        raise NotImplementedError("tensor-elementwise: implement Tensor.__mul__")

    def __truediv__(self, other):  # self / other
        # return self / other; d/dself is 1 / other, d/dother is -self / other**2.
        raise NotImplementedError("tensor-elementwise: implement Tensor.__truediv__")

    def __neg__(self):  # -self
        # return -self; the local derivative is -1.
        raise NotImplementedError("tensor-elementwise: implement Tensor.__neg__")

    def __pow__(self, n):  # self ** n, for a plain number n
        # return self ** n for a plain number n; the local derivative is n * self**(n - 1).
        raise NotImplementedError("tensor-elementwise: implement Tensor.__pow__")

    def exp(self):
        # return exp(self); the local derivative is exp(self) itself.
        raise NotImplementedError("tensor-elementwise: implement Tensor.exp")

    def log(self):
        # return log(self) (self > 0); the local derivative is 1 / self.
        raise NotImplementedError("tensor-elementwise: implement Tensor.log")

    def relu(self):
        # return max(self, 0) element-wise; out.grad passes where self > 0, and 0 elsewhere.
        raise NotImplementedError("tensor-elementwise: implement Tensor.relu")

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
