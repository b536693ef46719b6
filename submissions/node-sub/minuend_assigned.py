# exercise: node-sub
# micrograd style: the second operand's gradient is subtracted correctly (-=), but the first
# operand's is assigned (=), so a node that is also used elsewhere loses what it had collected.
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = value
        self.grad = 0.0
        self._prev = tuple(parents)
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

    def __sub__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value - other.value, (self, other))

        def _backward():
            self.grad = out.grad
            other.grad -= out.grad

        out._backward = _backward
        return out

    def __rsub__(self, other):
        return Node(other) - self

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
