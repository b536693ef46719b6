# exercise: node-backward
"""Exercise node-backward: the backward pass of the tiny autograd engine.

Every operation is given: each one stores the nodes it was made from (parents) and the local
slope to each (slopes), as in the lesson "Autograd", Step 4. Implement Node.backward() at the
bottom.
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
        """Fill in .grad of every node this one was made from, with d(self)/d(that node).

        1. Sort: list the nodes so that each comes after every node it was made from. A
           depth-first walk through .parents does it; remember the nodes already listed (a set of
           their id()s), or a node reached by two paths is listed, and later counted, twice.
        2. Seed: self.grad = 1.0, because d(self)/d(self) = 1.
        3. Walk the list backwards, outputs first, so that a node's grad is complete before it is
           passed on: for each node, add node.grad * slope to each of its parents' grads. Use +=:
           a node used in two places gets gradient from both, and a leaf keeps adding across
           calls, as PyTorch's .grad does.
        """
        # TODO: sort, seed, walk backwards (see the docstring above).
        raise NotImplementedError("node-backward: implement Node.backward")
