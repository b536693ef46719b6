# exercise: node-mul
# Hostile: right work that sleeps 2 s at import, under node-mul's 5 s limit (and the hostile batch's 3 s), so
# that each of its uploads holds a course server's worker for that long. Uploaded again and again, it used to take every worker and
# hold up the class's reports (issue 31, item 3); a student's jobs are now graded one at a time
# (grader.service.work.queue), so it holds one worker at most. Graded alone it earns what its work earns.
import time

time.sleep(2)

# A correct answer in the lessons' own style: each node stores its parents and the local
# slope to each; backward() does the chain rule for every operation at once.
import math


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
        return self + (other * -1.0 if isinstance(other, Node) else Node(-other))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

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
