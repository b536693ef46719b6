# exercise: tiny-engine
"""Node with a _backward per op; every operator has its own backward function."""
import math


def wrap(x):
    return x if isinstance(x, Node) else Node(x)


class Node:
    def __init__(self, value, prev=(), op=""):
        self.value = float(value)
        self.grad = 0.0
        self._prev = tuple(prev)
        self._op = op
        self._backward = lambda: None

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad}, op={self._op!r})"

    def __add__(self, other):
        other = wrap(other)
        out = Node(self.value + other.value, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __sub__(self, other):
        other = wrap(other)
        out = Node(self.value - other.value, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = wrap(other)
        out = Node(self.value * other.value, (self, other), "*")

        def _backward():
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad
        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = wrap(other)
        out = Node(self.value / other.value, (self, other), "/")

        def _backward():
            self.grad += out.grad / other.value
            other.grad += -self.value / other.value ** 2 * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return wrap(other) + self

    def __rsub__(self, other):
        return wrap(other) - self

    def __rmul__(self, other):
        return wrap(other) * self

    def __rtruediv__(self, other):
        return wrap(other) / self

    def __neg__(self):
        out = Node(-self.value, (self,), "neg")

        def _backward():
            self.grad -= out.grad
        out._backward = _backward
        return out

    def __pow__(self, n):
        out = Node(self.value ** n, (self,), f"**{n}")

        def _backward():
            self.grad += n * self.value ** (n - 1) * out.grad
        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1.0 / (1.0 + math.exp(-self.value))
        out = Node(s, (self,), "sigmoid")

        def _backward():
            self.grad += s * (1.0 - s) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Node(self.value if self.value > 0 else 0.0, (self,), "relu")

        def _backward():
            if self.value > 0:
                self.grad += out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.value)
        out = Node(t, (self,), "tanh")

        def _backward():
            self.grad += (1.0 - t * t) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Node(math.exp(self.value), (self,), "exp")

        def _backward():
            self.grad += out.value * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Node(math.log(self.value), (self,), "log")

        def _backward():
            self.grad += out.grad / self.value
        out._backward = _backward
        return out

    def backward(self):
        topo = []

        def build(v):
            for child in v._prev:
                build(child)
            topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
