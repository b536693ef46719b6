# exercise: node-mul
# Hostile: a 1.3 KB file whose every gradient and value is a list of 150,000 floats: it scores 0, and its
# report must not be megabytes that the course server parses and sends for every request
import math

BIG = [0.5] * 150_000


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self._value, self.parents, self.slopes = value, parents, slopes
        self._backward = lambda: None

    value = property(lambda self: BIG, lambda self, v: setattr(self, '_value', v))
    grad = property(lambda self: BIG, lambda self, v: None)

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self._value + other._value, (self, other))

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self._value * other._value, (self, other))

    def __pow__(self, n):
        return Node(self._value ** n, (self,))

    def sigmoid(self):
        return Node(1 / (1 + math.exp(-self._value)), (self,))

    def relu(self):
        return Node(max(self._value, 0.0), (self,))

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return (-self) + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        pass
