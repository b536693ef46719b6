# exercise: tensor-shape
"""Variant of tensor-shape: a correct tensor engine written another way. Every operation goes through one helper that
takes the result and, for each input, the function from out.grad to that input's gradient; unbroadcast is a loop
over the axes; matmul's gradients use einsum; a reduction's gradient is broadcast back with np.broadcast_to; an
index's gradient is scattered with np.add.at on a flat copy; backward() orders the tensors by Kahn's algorithm."""

import numpy as np


def unbroadcast(grad, shape):
    grad = np.asarray(grad, dtype=np.float64)
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + i for i, size in enumerate(shape)
                                       if size == 1 and grad.shape[extra + i] != 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape) if axes else grad.reshape(shape)


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))


class Tensor:
    def __init__(self, data, _parents=()):
        self.data = np.array(data, dtype=np.float64)
        self.grad = None
        self._parents = tuple(_parents)
        self._backward = lambda: None

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        return f"Tensor({self.data}, grad={self.grad})"

    def _accumulate(self, g):
        g = np.array(g, dtype=np.float64)
        self.grad = g if self.grad is None else self.grad + g

    def _op(self, data, parents, *rules):
        """A new tensor of `data`; its backward hands rule(out.grad) to each parent, summed to its shape."""
        out = Tensor(data, parents)

        def _backward():
            for parent, rule in zip(parents, rules):
                parent._accumulate(unbroadcast(rule(out.grad), parent.shape))

        out._backward = _backward
        return out

    @staticmethod
    def _t(x):
        return x if isinstance(x, Tensor) else Tensor(x)

    def __add__(self, other):
        other = Tensor._t(other)
        return self._op(self.data + other.data, (self, other), lambda g: g, lambda g: g)

    def __radd__(self, other):
        return Tensor._t(other) + self

    def __sub__(self, other):
        other = Tensor._t(other)
        return self._op(self.data - other.data, (self, other), lambda g: g, lambda g: -g)

    def __rsub__(self, other):
        return Tensor._t(other) - self

    def __mul__(self, other):
        other = Tensor._t(other)
        return self._op(self.data * other.data, (self, other), lambda g: g * other.data, lambda g: g * self.data)

    def __rmul__(self, other):
        return Tensor._t(other) * self

    def __truediv__(self, other):
        other = Tensor._t(other)
        quotient = self.data / other.data
        return self._op(quotient, (self, other), lambda g: g / other.data, lambda g: -g * quotient / other.data)

    def __rtruediv__(self, other):
        return Tensor._t(other) / self

    def __neg__(self):
        return self._op(-self.data, (self,), lambda g: -g)

    def __pow__(self, n):
        return self._op(self.data**n, (self,), lambda g: g * n * self.data ** (n - 1))

    def exp(self):
        e = np.exp(self.data)
        return self._op(e, (self,), lambda g: g * e)

    def log(self):
        return self._op(np.log(self.data), (self,), lambda g: g / self.data)

    def relu(self):
        gate = (self.data > 0).astype(np.float64)
        return self._op(self.data * gate, (self,), lambda g: g * gate)

    def __matmul__(self, other):
        other = Tensor._t(other)
        a, b = self.data, other.data
        return self._op(a @ b, (self, other),
                        lambda g: np.einsum("...ij,...kj->...ik", g, np.broadcast_to(b, g.shape[:-2] + b.shape[-2:])),
                        lambda g: np.einsum("...ji,...jk->...ik", np.broadcast_to(a, g.shape[:-2] + a.shape[-2:]), g))

    def _spread(self, g, axes, keepdims):
        """out.grad of a reduction over `axes`, back in this tensor's shape."""
        g = np.asarray(g, dtype=np.float64)
        if not keepdims:
            g = np.expand_dims(g, axes)
        return np.broadcast_to(g, self.shape)

    def sum(self, axis=None, keepdims=False):
        axes = _axes(axis, self.data.ndim)
        return self._op(self.data.sum(axis=axes, keepdims=keepdims), (self,),
                        lambda g: self._spread(g, axes, keepdims))

    def mean(self, axis=None, keepdims=False):
        axes = _axes(axis, self.data.ndim)
        count = int(np.prod([self.shape[a] for a in axes]))
        return self._op(self.data.mean(axis=axes, keepdims=keepdims), (self,),
                        lambda g: self._spread(g, axes, keepdims) / count)

    def max(self, axis=None, keepdims=False):
        axes = _axes(axis, self.data.ndim)
        top = self.data.max(axis=axes, keepdims=True)
        winners = (self.data == top).astype(np.float64)
        winners /= winners.sum(axis=axes, keepdims=True)  # tied maxima share it equally
        return self._op(self.data.max(axis=axes, keepdims=keepdims), (self,),
                        lambda g: self._spread(g, axes, keepdims) * winners)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self._op(self.data.reshape(shape), (self,), lambda g: np.reshape(g, self.shape))

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        order = tuple(axes) if axes else tuple(reversed(range(self.data.ndim)))
        back = tuple(order.index(i) for i in range(len(order)))
        return self._op(self.data.transpose(order), (self,), lambda g: np.transpose(g, back))

    @property
    def T(self):
        return self.transpose()

    def broadcast_to(self, shape):
        return self._op(np.broadcast_to(self.data, shape).copy(), (self,), lambda g: g)

    def __getitem__(self, index):
        picked = np.arange(self.data.size).reshape(self.shape)[index]

        def scatter(g):
            flat = np.zeros(self.data.size)
            np.add.at(flat, picked.ravel(), np.broadcast_to(g, picked.shape).ravel())
            return flat.reshape(self.shape)

        return self._op(self.data[index], (self,), scatter)

    def backward(self, grad=None):
        if grad is None:
            if self.data.size != 1:
                raise ValueError("backward() of a tensor with more than one element needs a gradient")
            grad = np.ones_like(self.data)
        users, found, todo = {id(self): 0}, {id(self): self}, [self]
        while todo:
            t = todo.pop()
            for parent in t._parents:
                users[id(parent)] = users.get(id(parent), 0) + 1
                if id(parent) not in found:
                    found[id(parent)] = parent
                    todo.append(parent)
        for t in found.values():  # only the leaves keep what earlier backward() calls gave them
            if t._parents:
                t.grad = None
        self._accumulate(np.array(grad, dtype=np.float64))
        ready = [self]
        while ready:
            t = ready.pop()
            t._backward()
            for parent in t._parents:
                users[id(parent)] -= 1
                if users[id(parent)] == 0:
                    ready.append(parent)
