# exercise: node-sigmoid
# Micrograd style. The student differentiated 1 / (1 + e^-x) by hand and dropped the square of
# the denominator: e^-x / (1 + e^-x) instead of e^-x / (1 + e^-x)^2. The forward is the one-line
# formula, so it also overflows at large negative x.
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = value
        self.grad = 0.0
        self.parents = parents
        self._backward = lambda: None

    def __add__(self, other):
        if not isinstance(other, Node):
            other = Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        if not isinstance(other, Node):
            other = Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad

        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __pow__(self, n):
        out = Node(self.value ** n, (self,))

        def _backward():
            self.grad += n * self.value ** (n - 1) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        ex = math.exp(-self.value)
        out = Node(1.0 / (1.0 + ex), (self,))

        def _backward():
            self.grad += ex / (1.0 + ex) * out.grad  # should be divided by (1 + ex) ** 2

        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for p in v.parents:
                    build(p)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
