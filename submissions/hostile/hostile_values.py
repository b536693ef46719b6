# exercise: node-mul
# Hostile: returns objects whose __eq__, __float__, __array__, __array_function__, __torch_function__, __len__ and __iter__ lie
class Liar:
    """Claims to equal anything and to be any number."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __float__(self):
        return 6.0

    def __index__(self):
        return 6

    def __array__(self, *args, **kwargs):
        import numpy
        return numpy.array(6.0)

    def __array_function__(self, func, types, args, kwargs):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return True

    def __len__(self):
        return 10**9

    def __iter__(self):
        while True:
            yield 6.0

    def __repr__(self):
        return "6.0"

import math


class Node:
    """A number that remembers how it was made, so backward() can find every gradient.

    Node(value, parents=(), slopes=()) is the lessons' signature. This engine gives each node a
    _backward function instead of stored slopes: it sends the node's grad on to its parents.
    """

    def __init__(self, value, parents=(), slopes=()):
        self._value, self._grad = value, 0.0
        self.parents, self.slopes = parents, slopes
        self._backward = lambda: None

    value = property(lambda self: Liar() if isinstance(self._value, float) and abs(self._value) > 1e-300 else self._value)
    grad = property(lambda self: Liar(), lambda self, v: setattr(self, '_grad', v))
    def __repr__(self):
        return 'Node'

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self._value + other._value, (self, other))

        def _backward():
            self._grad += out._grad
            other._grad += out._grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self._value * other._value, (self, other))

        def _backward():
            self._grad += other._value * out._grad
            other._grad += self._value * out._grad

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
        self._grad = 1.0
        for node in reversed(order):  # outputs first: each grad is complete before it is passed on
            node._backward()
