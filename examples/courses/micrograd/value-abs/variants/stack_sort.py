# exercise: value-abs
"""Variant of value-abs: a correct micrograd-style Value written another way. Its children are a tuple, not a set;
backward() sorts the nodes depth-first with a stack of its own (no recursion); a product sends each operand the
other's data with one closure over both, and abs is sqrt(x * x) with the slope x / |x|."""

import math


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data, self.grad = data, 0.0
        self._prev, self._op = tuple(_children), _op
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _wrap(x):
        return x if isinstance(x, Value) else Value(x)

    def _with(self, data, children, slopes, op):
        out = Value(data, children, op)

        def _backward():
            for child, slope in zip(children, slopes):
                child.grad += slope * out.grad

        out._backward = _backward
        return out

    def __add__(self, other):
        other = Value._wrap(other)
        return self._with(self.data + other.data, (self, other), (1.0, 1.0), "+")

    def __mul__(self, other):
        other = Value._wrap(other)
        return self._with(self.data * other.data, (self, other), (other.data, self.data), "*")

    def __pow__(self, n):
        assert isinstance(n, (int, float)), "only int and float powers"
        return self._with(self.data**n, (self,), (n * self.data ** (n - 1),), f"**{n}")

    def abs(self):
        size = math.sqrt(self.data * self.data)
        return self._with(size, (self,), (self.data / size,), "abs")

    def relu(self):
        return self._with(max(self.data, 0.0), (self,), (1.0 if self.data > 0 else 0.0,), "ReLU")

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-Value._wrap(other))

    def __rsub__(self, other):
        return Value._wrap(other) + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * Value._wrap(other) ** -1

    def __rtruediv__(self, other):
        return Value._wrap(other) * self**-1

    def backward(self):
        topo, visited, stack = [], set(), [(self, iter(self._prev))]
        visited.add(id(self))
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                topo.append(node)
            elif id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
