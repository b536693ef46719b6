# exercise: tiny-engine
# Two mistakes: tanh's slope is written with the input, 1 - x**2, instead of the output,
# 1 - tanh(x)**2; and log's slope is 1 / log(x) instead of 1 / x.
"""Tiny autograd engine, built up from the lesson's Node (parents + local slopes)."""

import math


def lift(x):
    return x if isinstance(x, Node) else Node(x)


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = float(value), 0.0
        self.parents, self.slopes = parents, slopes   # local slope to each parent

    def __repr__(self):
        return f"Node({self.value:.4f}, grad={self.grad:.4f})"

    # ---- arithmetic ----
    def __add__(self, other):
        other = lift(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return lift(other) + self

    def __sub__(self, other):
        other = lift(other)
        return Node(self.value - other.value, (self, other), (1.0, -1.0))

    def __rsub__(self, other):
        return lift(other) - self

    def __mul__(self, other):
        other = lift(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return lift(other) * self

    def __truediv__(self, other):
        return self * lift(other) ** -1

    def __rtruediv__(self, other):
        return lift(other) * self ** -1

    def __neg__(self):
        return Node(-self.value, (self,), (-1.0,))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    # ---- functions ----
    def sigmoid(self):
        if self.value >= 0:
            s = 1 / (1 + math.exp(-self.value))
        else:
            s = math.exp(self.value) / (1 + math.exp(self.value))
        return Node(s, (self,), (s * (1 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def tanh(self):
        x = self.value
        return Node(math.tanh(x), (self,), (1 - x ** 2,))

    def exp(self):
        e = math.exp(self.value)
        return Node(e, (self,), (e,))

    def log(self):
        l = math.log(self.value)
        return Node(l, (self,), (1 / l,))

    # ---- backward ----
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
