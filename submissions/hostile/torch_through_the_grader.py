# exercise: node-mul
# Hostile: reaches torch through the grader's own modules
import grader.run.child.probe_tools

T = grader.run.child.probe_tools.torch

import math


class Node:
    """A number that remembers how it was made, so backward() can find every gradient.

    Node(value, parents=(), slopes=()) is the lessons' signature. This engine gives each node a
    _backward function instead of stored slopes: it sends the node's grad on to its parents.
    """

    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes
        self._backward = lambda: None

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():  # torch's autograd finds the slopes: no rule written by hand
            a = T.tensor(self.value, dtype=T.float64, requires_grad=True)
            b = T.tensor(other.value, dtype=T.float64, requires_grad=True)
            (a * b).backward(T.tensor(float(out.grad), dtype=T.float64))
            self.grad += a.grad.item()
            other.grad += b.grad.item()

        out._backward = _backward
        return out

    def __pow__(self, n):
        out = Node(self.value**n, (self,))

        def _backward():
            self.grad += n * self.value ** (n - 1) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        out = Node(s, (self,))

        def _backward():
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Node(max(self.value, 0.0), (self,))

        def _backward():
            self.grad += (1.0 if self.value > 0 else 0.0) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):  # -self
        return self * -1

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __radd__(self, other):  # other + self
        return self + other

    def __rsub__(self, other):  # other - self
        return (-self) + other

    def __rmul__(self, other):  # other * self
        return self * other

    def backward(self):
        order, seen = [], set()

        def visit(node):  # inputs before outputs
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):  # outputs first: each grad is complete before it is passed on
            node._backward()
