# exercise: node-mul
# Hostile: right code that asks the grader one yes-or-no question about its hidden checks. Only the hidden check
# multiplies a product by one of its own factors (h * z * h); there, and only there, __mul__ calls
# sys._current_frames(), which the guard refuses and the report's integrity notes. Before the deadline a course
# server's student view must not show that note (nor the time the hidden run took): the view is the same,
# byte for byte, as that of its twin with TRIGGER = None (tests/test_service_report.py).
import sys

TRIGGER = True


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
        if TRIGGER and any(parent is other for parent in self.parents):
            try:
                sys._current_frames()
            except Exception:
                pass
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return self * other

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += node.grad * slope
