# exercise: node-sub
# Mistake: in the lesson-style slopes the -1 is put on the first operand and the +1 on the
# second, (-1, 1) instead of (1, -1), so both gradients of x - y come out with the wrong sign.
"""node-sub: I rewrote the engine the way the Autograd lesson does it (parents + slopes)."""

import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes   # local slope to each parent

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        # x - y: the minus sign goes with the slope
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value - other.value, (self, other), (-1.0, 1.0))

    def __rsub__(self, other):
        return Node(other) - self

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

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
