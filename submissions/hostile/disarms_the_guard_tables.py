# exercise: node-mul
# Hostile: every gradient comes out negated, and the submission tries to fix that after the fact: it empties
# the guard's tables of refusals (grader.run.guard.guard's _REFUSED and _FRAME_ATTRIBUTES), makes its own file
# one of the guard's, answers every import itself (grader.run.guard.guard_public._ask), then sets a trace
# function that negates every gradient in each probe's observations as run_probe returns them
import math
import sys


def _disarm():
    guard, public = (sys.modules.get(n) for n in ("grader.run.guard.guard", "grader.run.guard.guard_public"))
    if guard is not None:
        guard._REFUSED.clear()
        guard._FRAME_ATTRIBUTES = frozenset()
        guard._OWN_FILES = frozenset({*guard._OWN_FILES, __file__})
    if public is not None:
        public._ask = lambda name: None


def _fix_signs(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "run_probe" and isinstance(arg, dict):
        for label, value in arg.items():
            if label.endswith(".grad") and hasattr(value, "value"):
                arg[label] = type(value)(-value.value)
    return _fix_signs


_disarm()
try:
    sys.settrace(_fix_signs)
except BaseException:  # noqa: BLE001 - refused: the submission goes on with what it wrote
    pass



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
        for node in order:  # the mistake: every gradient comes out with the wrong sign
            node.grad = -node.grad
