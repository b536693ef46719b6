# exercise: tiny-engine
"""A tiny engine with no subtraction and no division yet (the solution with __sub__, __rsub__, __neg__, __truediv__
and __rtruediv__ left out): each check stops at the first method it lacks."""

import math


def _lift(x):
    """A plain number becomes a leaf Node, so that 2 * n and n * 2 both work."""
    return x if isinstance(x, Node) else Node(x)


class Node:
    """A number that remembers how it was made: its parents and the local slope to each."""

    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = float(value), 0.0
        self.parents, self.slopes = parents, slopes  # local slope to each parent

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):  # self + other
        other = _lift(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))


    def __mul__(self, other):  # self * other
        other = _lift(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))


    def __pow__(self, n):  # self ** n, n a plain number
        return Node(self.value**n, (self,), (n * self.value ** (n - 1),))


    def __radd__(self, other):  # other + self, for 2 + n
        return _lift(other) + self


    def __rmul__(self, other):  # other * self, for 2 * n
        return _lift(other) * self


    def sigmoid(self):
        if self.value >= 0:  # two branches, so that exp never overflows
            s = 1.0 / (1.0 + math.exp(-self.value))
        else:
            e = math.exp(self.value)
            s = e / (1.0 + e)
        return Node(s, (self,), (s * (1.0 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, (self,), (1.0 - t * t,))

    def exp(self):
        e = math.exp(self.value)
        return Node(e, (self,), (e,))

    def log(self):
        return Node(math.log(self.value), (self,), (1.0 / self.value,))

    def backward(self):
        order, seen = [], set()

        def visit(node):  # depth-first: inputs before outputs
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):  # outputs first: each grad is complete before it is passed on
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += node.grad * slope
