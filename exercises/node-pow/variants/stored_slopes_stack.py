# exercise: node-pow
"""Variant of node-pow: a correct engine written another way. Each node stores the local slope to each parent, as
the lessons' Node(value, parents, slopes) does; backward() sorts the nodes depth-first with a stack of its own (no
recursion), keeping the nodes already sorted in a set; the sigmoid goes through exp(-|x|), which never overflows."""

import math


def _leaf(x):
    return x if isinstance(x, Node) else Node(float(x))


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = list(parents), list(slopes)

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):
        other = _leaf(other)
        return Node(self.value + other.value, [self, other], [1.0, 1.0])

    __radd__ = __add__

    def __mul__(self, other):
        other = _leaf(other)
        return Node(self.value * other.value, [self, other], [other.value, self.value])

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-_leaf(other))

    def __rsub__(self, other):
        return _leaf(other) + (-self)

    def __pow__(self, n):
        return Node(self.value**n, [self], [n * self.value ** (n - 1)])

    def __truediv__(self, other):
        return self * _leaf(other) ** -1

    def __rtruediv__(self, other):
        return _leaf(other) * self**-1

    def sigmoid(self):
        e = math.exp(-abs(self.value))
        s = 1.0 / (1.0 + e) if self.value >= 0 else e / (1.0 + e)
        return Node(s, [self], [s * (1.0 - s)])

    def relu(self):
        return Node(max(0.0, self.value), [self], [0.0 if self.value <= 0 else 1.0])

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, [self], [(1.0 - t) * (1.0 + t)])

    def exp(self):
        e = math.exp(self.value)
        return Node(e, [self], [e])

    def log(self):
        return Node(math.log(self.value), [self], [1.0 / self.value])

    def backward(self):
        order, done = [], set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in done:
                done.add(node)
                stack.append((node, True))
                stack.extend((parent, False) for parent in reversed(node.parents))
        self.grad = 1.0
        for node in reversed(order):
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += slope * node.grad
