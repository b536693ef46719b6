# exercise: tiny-engine
"""Autograd lesson, step 4 onwards: my Node with parents and slopes, plus the rest of the
operators and the activations."""
import math


def const(x):
    return x if isinstance(x, Node) else Node(x)


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = float(value), 0.0
        self.parents, self.slopes = parents, slopes   # local slope to each parent

    def __repr__(self):
        return f"Node({self.value:.4f}, grad={self.grad:.4f})"

    def __add__(self, other):
        other = const(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return const(other) + self

    def __sub__(self, other):
        other = const(other)
        return Node(self.value - other.value, (self, other), (1.0, -1.0))

    def __rsub__(self, other):
        return const(other) - self

    def __mul__(self, other):
        other = const(other)
        return Node(self.value * other.value, (self, other), (self.value, other.value))

    def __rmul__(self, other):
        return const(other) * self

    def __truediv__(self, other):
        other = const(other)
        x, y = self.value, other.value
        return Node(x / y, (self, other), (1 / y, -x / y ** 2))

    def __rtruediv__(self, other):
        k, x = const(other).value, self.value
        return Node(k / x, (self,), (-k / x ** 2,))

    def __neg__(self):
        return Node(-self.value, (self,), (-1.0,))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, (self,), (1 - t ** 2,))

    def exp(self):
        e = math.exp(self.value)
        return Node(e, (self,), (e,))

    def log(self):
        return Node(math.log(self.value), (self,), (1 / self.value,))

    def backward(self):
        order, seen = [], set()

        def visit(node):                              # sort: inputs before outputs
            if id(node) not in seen:
                seen.add(id(node))
                for p in node.parents:
                    visit(p)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):                  # walk backwards, chain rule
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += node.grad * slope
