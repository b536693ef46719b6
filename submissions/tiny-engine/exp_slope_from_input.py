# exercise: tiny-engine
# The lesson's design, complete, except that exp() records the input x as its local slope.
# The slope of e**x is e**x, the output, not x (a mix-up seen in the micrograd lecture issues).
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes

    @staticmethod
    def wrap(x):
        return x if isinstance(x, Node) else Node(x)

    def __add__(self, other):
        other = Node.wrap(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = Node.wrap(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-Node.wrap(other))

    def __truediv__(self, other):
        return self * Node.wrap(other) ** -1

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return Node.wrap(other) - self

    def __rtruediv__(self, other):
        return Node.wrap(other) / self

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (float(self.value > 0),))

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, (self,), (1 - t ** 2,))

    def exp(self):
        return Node(math.exp(self.value), (self,), (self.value,))

    def log(self):
        return Node(math.log(self.value), (self,), (1 / self.value,))

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
