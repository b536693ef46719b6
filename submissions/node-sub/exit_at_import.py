# exercise: node-sub
# A correct class, followed by the student's own test script, which ends with sys.exit(0):
# loading the file for grading stops the program before any check can run.
import sys


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return self * other

    def __sub__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value - other.value, (self, other), (1.0, -1.0))

    def __rsub__(self, other):
        return Node(other) - self

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
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += node.grad * slope


x, y = Node(5.0), Node(3.0)
out = (x - y) * (x - y)
out.backward()
print("x.grad =", x.grad, " y.grad =", y.grad)  # 4.0 and -4.0
sys.exit(0)
