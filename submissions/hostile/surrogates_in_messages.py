# exercise: node-mul
# Hostile: backward() raises with lone surrogates in its message, which no UTF-8 writer takes,
# and prints bytes that are not UTF-8. A surrogate once crashed the report (exit 3; in a batch the worker died).
import sys
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes

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

    def __sub__(self, other):
        return self + (other * -1.0 if isinstance(other, Node) else Node(-other))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def backward(self):
        sys.stdout.buffer.write(b'printed: \xed\xa0\x80 \xff\n')
        sys.stdout.flush()
        raise ValueError('lone surrogates: ' + chr(0xDFFF) + chr(0xD800) + ' and a bidi mark ' + chr(0x202E))

    def _backward_as_written(self):
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
