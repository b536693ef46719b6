# exercise: tiny-engine
# Each node stores a grad_fn that maps the gradient from above to one gradient per parent.
# Subtraction copies addition's grad_fn and forgets the minus sign for the right operand:
# d(x - y)/dy should be -1, not +1.
import math


def as_node(x):
    return x if isinstance(x, Node) else Node(x)


class Node:
    def __init__(self, value, parents=(), grad_fn=None):
        self.value = float(value)
        self.grad = 0.0
        self.parents = parents
        self.grad_fn = grad_fn  # g -> (gradient for parents[0], gradient for parents[1], ...)

    def __add__(self, other):
        other = as_node(other)
        return Node(self.value + other.value, (self, other), lambda g: (g, g))

    def __radd__(self, other):
        return as_node(other) + self

    def __sub__(self, other):
        other = as_node(other)
        return Node(self.value - other.value, (self, other), lambda g: (g, g))

    def __rsub__(self, other):
        return as_node(other) - self

    def __mul__(self, other):
        other = as_node(other)
        a, b = self.value, other.value
        return Node(a * b, (self, other), lambda g: (g * b, g * a))

    def __rmul__(self, other):
        return as_node(other) * self

    def __truediv__(self, other):
        other = as_node(other)
        a, b = self.value, other.value
        return Node(a / b, (self, other), lambda g: (g / b, -g * a / b**2))

    def __rtruediv__(self, other):
        return as_node(other) / self

    def __neg__(self):
        return Node(-self.value, (self,), lambda g: (-g,))

    def __pow__(self, k):
        a = self.value
        return Node(a**k, (self,), lambda g: (g * k * a ** (k - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), lambda g: (g * s * (1 - s),))

    def relu(self):
        on = self.value > 0
        return Node(self.value if on else 0.0, (self,), lambda g: (g if on else 0.0,))

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, (self,), lambda g: (g * (1 - t * t),))

    def exp(self):
        e = math.exp(self.value)
        return Node(e, (self,), lambda g: (g * e,))

    def log(self):
        a = self.value
        return Node(math.log(a), (self,), lambda g: (g / a,))

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            if node.grad_fn is not None:
                for parent, g in zip(node.parents, node.grad_fn(node.grad)):
                    parent.grad += g
