# exercise: node-mul
# Hostile: whatever the grader reads of its objects ends the process: each gradient is an object whose repr()
# and str() raise SystemExit, and a backward() from a negative output raises an exception whose message (its
# __str__), and whose args' repr, raise SystemExit. All of it is its own doing: the product's value still scores
# (1/10), and no check is the grader's failure
import math


class Gone:
    def __repr__(self):
        raise SystemExit("repr")

    __str__ = __repr__

    def __float__(self):
        raise SystemExit("float")


class Unreadable(Exception):
    def __str__(self):
        raise SystemExit("str")

    def __repr__(self):
        raise SystemExit("repr")


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
        if isinstance(self.value, float) and self.value < 0:
            raise Unreadable("the message is read by the grader")
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
        for node in order:  # the mistake: every gradient is an object that cannot be read
            node.grad = Gone()
