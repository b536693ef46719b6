# exercise: node-mul
# Hostile: carries a hidden check's input out through the diagnosis. Its public checks make 26 nodes; the
# 27th is the first number of the hidden check, whose run replays the public ones first. From then on a new
# node's grad starts at that number. Its public checks fail (a wrong slope for x in x * y), so the grader
# localizes the fault; a localization made in the hidden checks' process would read a new node's grad and
# quote it: "a new node's grad is <the hidden input>, not 0"
import math

PUBLIC_NODES = 26
_made = []


class Node:
    def __init__(self, value, parents=(), slopes=()):
        _made.append(value)
        self.value, self.grad = value, _made[PUBLIC_NODES] if len(_made) > PUBLIC_NODES + 1 else 0.0
        self.parents, self.slopes = parents, slopes

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value * other.value, (self, other), (other.value + 1.0, self.value))

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
