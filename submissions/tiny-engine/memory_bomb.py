# exercise: tiny-engine
# A correct engine, except that every operation "keeps its history for plotting later" in a
# global list, pre-sized for 150 million steps. The second operation runs out of memory
# (MemoryError), and so does every operation after it: the grader reports it and carries on.
import math

HISTORY = []


def remember(value):
    HISTORY.append([value] * 150_000_000)  # room for the whole training run


def lift(x):
    return x if isinstance(x, Node) else Node(x)


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = float(value), 0.0
        self.parents, self.slopes = parents, slopes

    def _result(self, value, parents, slopes):
        remember(value)
        return Node(value, parents, slopes)

    def __add__(self, other):
        other = lift(other)
        return self._result(self.value + other.value, (self, other), (1.0, 1.0))

    def __sub__(self, other):
        other = lift(other)
        return self._result(self.value - other.value, (self, other), (1.0, -1.0))

    def __mul__(self, other):
        other = lift(other)
        return self._result(self.value * other.value, (self, other), (other.value, self.value))

    def __truediv__(self, other):
        other = lift(other)
        return self._result(self.value / other.value, (self, other),
                            (1 / other.value, -self.value / other.value ** 2))

    def __pow__(self, k):
        return self._result(self.value ** k, (self,), (k * self.value ** (k - 1),))

    def __neg__(self):
        return self._result(-self.value, (self,), (-1.0,))

    def __radd__(self, other):
        return lift(other) + self

    def __rsub__(self, other):
        return lift(other) - self

    def __rmul__(self, other):
        return lift(other) * self

    def __rtruediv__(self, other):
        return lift(other) / self

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return self._result(s, (self,), (s * (1 - s),))

    def relu(self):
        return self._result(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def tanh(self):
        t = math.tanh(self.value)
        return self._result(t, (self,), (1 - t * t,))

    def exp(self):
        e = math.exp(self.value)
        return self._result(e, (self,), (e,))

    def log(self):
        return self._result(math.log(self.value), (self,), (1 / self.value,))

    def backward(self):
        order, seen = [], set()

        def visit(n):
            if id(n) not in seen:
                seen.add(id(n))
                for p in n.parents:
                    visit(p)
                order.append(n)

        visit(self)
        self.grad = 1.0
        for n in reversed(order):
            for p, s in zip(n.parents, n.slopes):
                p.grad += n.grad * s
