# exercise: node-sigmoid
# Correct gradients, but the forward is the one-line textbook formula: math.exp(-x) overflows for
# x = -800, so sigmoid() raises OverflowError for large negative inputs and works everywhere else.
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents = parents
        self._backward = lambda: None

    def _wrap(self, other):
        return other if isinstance(other, Node) else Node(other)

    def __add__(self, other):
        other = self._wrap(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad

        out._backward = _backward
        return out

    def __sub__(self, other):
        return self + self._wrap(other) * -1.0

    def __pow__(self, n):
        out = Node(self.value ** n, (self,))

        def _backward():
            self.grad += n * self.value ** (n - 1) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        out = Node(1.0 / (1.0 + math.exp(-self.value)), (self,))

        def _backward():
            self.grad += out.value * (1.0 - out.value) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
