# exercise: node-mul
# Mistake: the product's slopes are stored as (x, y) instead of (y, x): each operand gets its
# own value as its slope instead of the other operand's, so x.grad and y.grad come out swapped.
"""node-mul, written in the lesson's style: every Node keeps its parents and the local slope to each."""

import math


def as_node(x):
    return x if isinstance(x, Node) else Node(x)


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):
        other = as_node(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = as_node(other)
        # d(x*y)/dx and d(x*y)/dy
        return Node(self.value * other.value, (self, other), (self.value, other.value))

    def __rmul__(self, other):
        return as_node(other) * self

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-as_node(other))

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return (-self) + other

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for p in node.parents:
                    visit(p)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += node.grad * slope
