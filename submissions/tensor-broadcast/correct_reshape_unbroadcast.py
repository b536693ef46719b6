# exercise: tensor-broadcast
"""A correct unbroadcast written another way: pad the shape with 1s, sum every axis where it is 1, reshape."""

import numpy as np


def unbroadcast(grad, shape):
    padded = (1,) * (grad.ndim - len(shape)) + tuple(shape)
    axes = tuple(i for i, n in enumerate(padded) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


def lift(x):
    return x if isinstance(x, Tensor) else Tensor(x)


class Tensor:
    def __init__(self, data, children=(), op=""):
        self.data = np.array(data, dtype=np.float64)
        self.grad = None
        self._prev = children
        self._op = op
        self._backward = lambda: None

    @property
    def shape(self):
        return self.data.shape

    def _add(self, g):
        self.grad = g.copy() if self.grad is None else self.grad + g

    def _binary(self, other, value, da, db, op):
        other = lift(other)
        out = Tensor(value(self.data, other.data), (self, other), op)

        def backward():
            self._add(unbroadcast(da(self.data, other.data, out.grad), self.shape))
            other._add(unbroadcast(db(self.data, other.data, out.grad), other.shape))

        out._backward = backward
        return out

    def __add__(self, other):
        return self._binary(other, np.add, lambda a, b, g: g, lambda a, b, g: g, "+")

    def __sub__(self, other):
        return self._binary(other, np.subtract, lambda a, b, g: g, lambda a, b, g: -g, "-")

    def __mul__(self, other):
        return self._binary(other, np.multiply, lambda a, b, g: g * b, lambda a, b, g: g * a, "*")

    def __truediv__(self, other):
        return self._binary(other, np.divide, lambda a, b, g: g / b, lambda a, b, g: -g * a / b**2, "/")

    def __radd__(self, other):
        return lift(other) + self

    def __rsub__(self, other):
        return lift(other) - self

    def __rmul__(self, other):
        return lift(other) * self

    def __rtruediv__(self, other):
        return lift(other) / self

    def backward(self, grad=None):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        for v in topo:
            if v._prev:
                v.grad = None
        self._add(np.ones_like(self.data) if grad is None else np.asarray(grad, dtype=np.float64))
        for v in reversed(topo):
            v._backward()
