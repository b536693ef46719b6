# exercise: node-pow
# The constructor takes no value: the student creates empty nodes and fills them in afterwards
# (n = Node(); n.value = 3.0). The lessons' Node(value) then raises TypeError everywhere.
import math


class Node:
    def __init__(self):
        self.value = 0.0
        self.grad = 0.0
        self.parents = ()
        self.slopes = ()

    @classmethod
    def make(cls, value, parents=(), slopes=()):
        node = cls()
        node.value, node.parents, node.slopes = value, parents, slopes
        return node

    def _lift(self, other):
        return other if isinstance(other, Node) else Node.make(other)

    def __add__(self, other):
        other = self._lift(other)
        return Node.make(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = self._lift(other)
        return Node.make(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return self * other

    def __pow__(self, n):
        return Node.make(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node.make(s, (self,), (s * (1 - s),))

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
