# exercise: node-backward
# Mistake: backward recurses into the parents with no topological sort and no visited set;
# a node reached by two paths pushes its (growing) gradient on once per path, so shared
# sub-graphs are over-counted.
"""Exercise node-backward: the backward pass of the tiny autograd engine.

Every operation is given: each one stores the nodes it was made from (parents) and the local
slope to each (slopes), as in the lesson "Autograd", Step 4. Implement Node.backward() at the
bottom. Check your work with:

    grade node_backward.py
"""

import math


class Node:
    """A number that remembers how it was made, so backward() can find every gradient.

    Node(value, parents=(), slopes=()) is the lessons' signature: each operation below makes a new
    Node holding its result, the nodes it was made from (parents) and the local slope of the
    result with respect to each parent (slopes), in the same order.
    """

    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes  # local slope to each parent

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):  # self + other
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __mul__(self, other):  # self * other
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __pow__(self, n):  # self ** n, n a plain number
        return Node(self.value**n, (self,), (n * self.value ** (n - 1),))

    def __neg__(self):  # -self
        return self * -1.0

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __truediv__(self, other):  # self / other
        other = other if isinstance(other, Node) else Node(other)
        return self * other**-1

    def __radd__(self, other):  # other + self, for 2 + n
        return self + other

    def __rmul__(self, other):  # other * self, for 2 * n
        return self * other

    def __rsub__(self, other):  # other - self, for 2 - n
        return (-self) + other

    def __rtruediv__(self, other):  # other / self, for 2 / n
        return Node(other) / self

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def relu(self):
        return Node(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, (self,), (1 - t * t,))

    def exp(self):
        e = math.exp(self.value)
        return Node(e, (self,), (e,))

    def log(self):
        return Node(math.log(self.value), (self,), (1 / self.value,))

    def backward(self):
        """Seed the output, then every node pushes its gradient to its parents, recursively."""
        self.grad = 1.0
        self._push()

    def _push(self):
        for parent, slope in zip(self.parents, self.slopes):
            parent.grad += self.grad * slope
            parent._push()  # chain rule: the parent passes it on to its own parents
