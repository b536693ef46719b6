# exercise: node-mul
# Hostile: right code that keeps talking once its public checks are done, when the hidden checks follow in the
# same process: a thread writes every Node's number to stdout and stderr as it appears, straight to the file
# descriptors and through unflushed text, and an exit handler writes them all again; none of what it sees of the
# hidden check may reach the report
import atexit
import math
import os
import sys
import threading
import time

_values = []


def _chatter():
    told = 0
    while True:
        while told < len(_values):
            line = f"CHATTER {_values[told]!r}\n".encode()
            for fd in (1, 2):
                try:
                    os.write(fd, line)
                except OSError:
                    pass
            told += 1
        time.sleep(0.0005)


threading.Thread(target=_chatter, daemon=True).start()
atexit.register(lambda: print("AT EXIT", _values, flush=True))


class Node:
    def __init__(self, value, parents=(), slopes=()):
        _values.append(value)
        sys.stdout.write(f"UNFLUSHED {value!r} ")  # no newline: it waits in the buffer
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
