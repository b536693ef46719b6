# exercise: tiny-engine
# Mistake (partial, division only): in a / b the denominator's slope is written a / b**2
# instead of -a / b**2; the numerator's slope and everything else are right.
"""My tiny engine, micrograd style: every node gets a _backward closure."""

import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = float(value)
        self.grad = 0.0
        self._prev = tuple(parents)
        self._backward = lambda: None

    def __repr__(self):
        return f"Node(value={self.value}, grad={self.grad})"

    @staticmethod
    def _wrap(x):
        return x if isinstance(x, Node) else Node(x)

    def __add__(self, other):
        other = Node._wrap(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Node._wrap(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad

        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = Node._wrap(other)
        out = Node(self.value / other.value, (self, other))

        def _backward():
            # quotient rule: d(a/b)/da = 1/b, d(a/b)/db = a/b^2
            self.grad += (1.0 / other.value) * out.grad
            other.grad += (self.value / other.value**2) * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        assert isinstance(k, (int, float)), "only plain-number exponents"
        out = Node(self.value**k, (self,))

        def _backward():
            self.grad += k * self.value ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-Node._wrap(other))

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return Node._wrap(other) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return Node._wrap(other) / self

    def sigmoid(self):
        x = self.value
        s = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
        out = Node(s, (self,))

        def _backward():
            self.grad += s * (1.0 - s) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Node(self.value if self.value > 0 else 0.0, (self,))

        def _backward():
            self.grad += (self.value > 0) * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.value)
        out = Node(t, (self,))

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        e = math.exp(self.value)
        out = Node(e, (self,))

        def _backward():
            self.grad += e * out.grad

        out._backward = _backward
        return out

    def log(self):
        out = Node(math.log(self.value), (self,))

        def _backward():
            self.grad += (1.0 / self.value) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
