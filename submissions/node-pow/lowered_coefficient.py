# exercise: node-pow
# micrograd style: the student lowers the exponent first and then uses the lowered exponent
# twice, as the coefficient too: (n - 1) * x**(n - 1) instead of n * x**(n - 1).
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = value
        self.grad = 0.0
        self._prev = parents
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad

        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __pow__(self, n):
        out = Node(self.value ** n, (self,))

        def _backward():
            lowered = n - 1
            self.grad += lowered * self.value ** lowered * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        out = Node(s, (self,))

        def _backward():
            self.grad += s * (1 - s) * out.grad

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
