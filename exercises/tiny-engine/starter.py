# exercise: tiny-engine
"""Exercise tiny-engine: write the whole tiny autograd engine yourself.

Write class Node, a single number that remembers how it was made, so that backward() can find
the gradient of a result with respect to every number it was made from. The lesson "Autograd"
(Step 4) shows the start of one; this one does everything below.

The contract (the grader uses only this, never your internals, so any design that keeps it is
fine: stored parents and slopes as in the lesson, or a _backward function per node as in
micrograd):

    Node(value, parents=(), slopes=())
        The grader calls Node(value) only; the other arguments are yours to use.
    n.value     the number, a float.
    n.grad      a float: d(output)/d(n) after output.backward(); 0.0 for a new node.

    Operators, each returning a new Node; a plain number (int or float) works on either side:
        a + b    a - b    a * b    a / b    -a    a ** k   (k a plain number, such as 2 or -1)
        2 + n    1 - n    2 * n    2 / n    (Python calls __radd__, __rsub__, __rmul__,
                                             __rtruediv__ when the number is on the left)
    Methods, each returning a new Node:
        n.sigmoid()   1 / (1 + e**-x)
        n.relu()      max(x, 0); its slope is 1 above 0 and 0 at or below 0
        n.tanh()      hyperbolic tangent
        n.exp()       e**x
        n.log()       natural logarithm (of a positive value)

    out.backward()
        Fills in .grad of out and of every node out was made from: seed out.grad = 1.0, visit
        the nodes in reverse topological order (outputs first; a node reached by two paths is
        visited once, after every node that uses it), and accumulate with +=. So a node used
        twice gets gradient from both uses (w * w at w = 3 gives w.grad = 6), and a leaf keeps
        adding across calls: (w * w).backward() twice, building the product afresh each time,
        leaves w.grad = 12, as in PyTorch.

The grader reproduces both lessons' numbers (the sigmoid neuron: loss 0.1611, dL/dw -0.2893,
dL/db -0.1928; the ReLU network: L = 4/9, dL/dw1 = 8/3, dL/dw2 = 4/9; the slope of x**3 - 4*x at
x = 2 is 8.0), then checks every operation on new random inputs each time.
"""

import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        raise NotImplementedError("tiny-engine: implement Node.__init__")

    def __add__(self, other):  # self + other
        raise NotImplementedError("tiny-engine: implement Node.__add__")

    def __radd__(self, other):  # other + self, for 2 + n
        raise NotImplementedError("tiny-engine: implement Node.__radd__")

    def __sub__(self, other):  # self - other
        raise NotImplementedError("tiny-engine: implement Node.__sub__")

    def __rsub__(self, other):  # other - self, for 1 - n
        raise NotImplementedError("tiny-engine: implement Node.__rsub__")

    def __mul__(self, other):  # self * other
        raise NotImplementedError("tiny-engine: implement Node.__mul__")

    def __rmul__(self, other):  # other * self, for 2 * n
        raise NotImplementedError("tiny-engine: implement Node.__rmul__")

    def __truediv__(self, other):  # self / other
        raise NotImplementedError("tiny-engine: implement Node.__truediv__")

    def __rtruediv__(self, other):  # other / self, for 2 / n
        raise NotImplementedError("tiny-engine: implement Node.__rtruediv__")

    def __neg__(self):  # -self
        raise NotImplementedError("tiny-engine: implement Node.__neg__")

    def __pow__(self, k):  # self ** k, k a plain number
        raise NotImplementedError("tiny-engine: implement Node.__pow__")

    def sigmoid(self):
        raise NotImplementedError("tiny-engine: implement Node.sigmoid")

    def relu(self):
        raise NotImplementedError("tiny-engine: implement Node.relu")

    def tanh(self):
        raise NotImplementedError("tiny-engine: implement Node.tanh")

    def exp(self):
        raise NotImplementedError("tiny-engine: implement Node.exp")

    def log(self):
        raise NotImplementedError("tiny-engine: implement Node.log")

    def backward(self):
        raise NotImplementedError("tiny-engine: implement Node.backward")
