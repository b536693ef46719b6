# exercise: node-backward
"""Variant of node-backward: a correct engine written another way. Each node keeps a closure that sends its grad on;
backward() orders the nodes by Kahn's algorithm (a node is ready once every node made from it has passed its grad
on), subtraction and division are operations of their own, and the sigmoid is 0.5 * (1 + tanh(x / 2))."""

import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = value
        self.grad = 0.0
        self.parents = tuple(parents)
        self.slopes = slopes
        self._backward = lambda: None

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    @staticmethod
    def _node(x):
        return x if isinstance(x, Node) else Node(x)

    def _make(self, value, parents, local):
        """A new node whose backward adds local[i] * out.grad to parents[i]."""
        out = Node(value, parents)

        def _backward():
            for parent, slope in zip(parents, local):
                parent.grad += slope * out.grad

        out._backward = _backward
        return out

    def __add__(self, other):
        other = Node._node(other)
        return self._make(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return Node._node(other) + self

    def __sub__(self, other):
        other = Node._node(other)
        return self._make(self.value - other.value, (self, other), (1.0, -1.0))

    def __rsub__(self, other):
        return Node._node(other) - self

    def __mul__(self, other):
        other = Node._node(other)
        return self._make(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return Node._node(other) * self

    def __truediv__(self, other):
        other = Node._node(other)
        quotient = self.value / other.value
        return self._make(quotient, (self, other), (1.0 / other.value, -quotient / other.value))

    def __rtruediv__(self, other):
        return Node._node(other) / self

    def __neg__(self):
        return self._make(-self.value, (self,), (-1.0,))

    def __pow__(self, n):
        return self._make(self.value**n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 0.5 * (1.0 + math.tanh(self.value / 2.0))
        return self._make(s, (self,), (s * (1.0 - s),))

    def relu(self):
        return self._make(self.value if self.value > 0 else 0.0, (self,), (float(self.value > 0),))

    def tanh(self):
        t = math.tanh(self.value)
        return self._make(t, (self,), (1.0 - t**2,))

    def exp(self):
        e = math.exp(self.value)
        return self._make(e, (self,), (e,))

    def log(self):
        return self._make(math.log(self.value), (self,), (1.0 / self.value,))

    def backward(self):
        # every node this output depends on, and how many of them use it
        users = {id(self): 0}
        found, todo = {id(self): self}, [self]
        while todo:
            node = todo.pop()
            for parent in node.parents:
                users[id(parent)] = users.get(id(parent), 0) + 1
                if id(parent) not in found:
                    found[id(parent)] = parent
                    todo.append(parent)
        self.grad = 1.0
        ready = [self]
        while ready:
            node = ready.pop()
            node._backward()
            for parent in node.parents:
                users[id(parent)] -= 1
                if users[id(parent)] == 0:
                    ready.append(parent)
