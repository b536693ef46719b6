# exercise: node-add
# A correct answer in the lessons' own style: every node keeps its parents and the local slope
# to each, and backward() applies the chain rule once for all operations.
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = value
        self.grad = 0.0
        self.parents = parents
        self.slopes = slopes

    @staticmethod
    def _wrap(thing):
        return thing if isinstance(thing, Node) else Node(thing)

    def __add__(self, other):
        other = Node._wrap(other)
        # d(a + b)/da = d(a + b)/db = 1
        return Node(self.value + other.value, parents=(self, other), slopes=(1.0, 1.0))

    def __radd__(self, other):
        # other + self, with other a plain number: addition commutes
        return Node._wrap(other) + self

    def __mul__(self, other):
        other = Node._wrap(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-Node._wrap(other))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1.0 / (1.0 + math.exp(-self.value))
        return Node(s, (self,), (s * (1.0 - s),))

    def relu(self):
        return Node(max(0.0, self.value), (self,), (1.0 if self.value > 0 else 0.0,))

    def backward(self):
        topo, visited = [], set()

        def build(node):
            if node not in visited:
                visited.add(node)
                for parent in node.parents:
                    build(parent)
                topo.append(node)

        build(self)
        self.grad = 1.0
        for node in reversed(topo):
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += slope * node.grad
