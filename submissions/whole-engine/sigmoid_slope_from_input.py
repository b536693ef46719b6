# exercise: tiny-engine
"""Engine with PyTorch-like grad_fn lambdas; sigmoid written the numerically safe way."""
import math


def as_node(x):
    if isinstance(x, Node):
        return x
    return Node(x)


class Node:
    def __init__(self, value, parents=(), grad_fn=None):
        self.value = float(value)
        self.grad = 0.0
        self.parents = parents
        self.grad_fn = grad_fn

    def __add__(self, other):
        other = as_node(other)
        return Node(self.value + other.value, (self, other), lambda g: (g, g))

    def __radd__(self, other):
        return as_node(other) + self

    def __sub__(self, other):
        other = as_node(other)
        return Node(self.value - other.value, (self, other), lambda g: (g, -g))

    def __rsub__(self, other):
        k = as_node(other).value
        return Node(k - self.value, (self,), lambda g: (-g,))

    def __mul__(self, other):
        other = as_node(other)
        a, b = self.value, other.value
        return Node(a * b, (self, other), lambda g: (g * b, g * a))

    def __rmul__(self, other):
        return as_node(other) * self

    def __truediv__(self, other):
        other = as_node(other)
        a, b = self.value, other.value
        return Node(a / b, (self, other), lambda g: (g / b, -g * a / b ** 2))

    def __rtruediv__(self, other):
        return as_node(other) / self

    def __neg__(self):
        return Node(-self.value, (self,), lambda g: (-g,))

    def __pow__(self, k):
        a = self.value
        return Node(a ** k, (self,), lambda g: (g * k * a ** (k - 1),))

    def sigmoid(self):
        a = self.value
        if a >= 0:
            s = 1 / (1 + math.exp(-a))
        else:
            s = math.exp(a) / (1 + math.exp(a))
        return Node(s, (self,), lambda g: (g * a * (1 - a),))

    def relu(self):
        a = self.value
        return Node(max(a, 0.0), (self,), lambda g: (g if a > 0 else 0.0,))

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
        # iterative post-order DFS, so deep graphs don't hit the recursion limit
        order, done, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in done:
                continue
            done.add(id(node))
            stack.append((node, True))
            for p in node.parents:
                if id(p) not in done:
                    stack.append((p, False))
        self.grad = 1.0
        for node in reversed(order):
            if node.grad_fn is None:
                continue
            for parent, g in zip(node.parents, node.grad_fn(node.grad)):
                parent.grad += g
