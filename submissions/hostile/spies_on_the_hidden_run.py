# exercise: node-mul
# Hostile: right code that spies: at import it wraps exec, eval and compile to print the code and the names
# the grader hands them, and every Node prints the number it holds, on stdout and stderr; whatever it sees of
# the hidden check must not reach the report
import builtins
import math
import sys

_seen = []


def _spy(original):
    def spying(*args, **kwargs):
        text = f"SPY {original.__name__}: {args[:1]!r} {sorted(args[1]) if len(args) > 1 and isinstance(args[1], dict) else ''}"
        _seen.append(text)
        print(text)
        print(text, file=sys.stderr)
        return original(*args, **kwargs)
    return spying


for _name in ("exec", "eval", "compile"):
    setattr(builtins, _name, _spy(getattr(builtins, _name)))


class Node:
    def __init__(self, value, parents=(), slopes=()):
        print(f"SPY value {value!r}")
        print(f"SPY value {value!r}", file=sys.stderr)
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
