# exercise: node-mul
# Hostile: __mul__'s backward is "not written yet", and its placeholder raises with the operands' values in
# its message, so that the grader's "not written yet" hint, on the hidden check too, would carry them
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self._backward = parents, lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            # the attack: the placeholder's message quotes this check's inputs
            raise NotImplementedError(f"inputs {self.value!r} and {other.value!r}")

        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,))

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
            node._backward()
