# exercise: tiny-engine
# Mistake (partial, __rtruediv__ only): k / x is computed as x / k, copied from the pattern
# of __radd__ and __rmul__ (return self <op> other), which only works for commutative ops.
"""tiny-engine: each op records (parent, local slope) pairs; backward sums into a dict first."""

import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = float(value)
        self.grad = 0.0
        self.edges = list(zip(parents, slopes))  # (parent, d self / d parent)

    def __repr__(self):
        return f"Node({self.value!r}, grad={self.grad!r})"

    @classmethod
    def of(cls, x):
        return x if isinstance(x, cls) else cls(x)

    def _unary(self, value, slope):
        return Node(value, (self,), (slope,))

    def _binary(self, other, value, slope_self, slope_other):
        return Node(value, (self, other), (slope_self, slope_other))

    def __add__(self, other):
        o = Node.of(other)
        return self._binary(o, self.value + o.value, 1.0, 1.0)

    def __sub__(self, other):
        o = Node.of(other)
        return self._binary(o, self.value - o.value, 1.0, -1.0)

    def __mul__(self, other):
        o = Node.of(other)
        return self._binary(o, self.value * o.value, o.value, self.value)

    def __truediv__(self, other):
        o = Node.of(other)
        return self._binary(o, self.value / o.value, 1.0 / o.value, -self.value / o.value ** 2)

    def __neg__(self):
        return self._unary(-self.value, -1.0)

    def __pow__(self, k):
        return self._unary(self.value ** k, k * self.value ** (k - 1))

    # number on the left
    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return Node.of(other) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return self / other

    def sigmoid(self):
        x = self.value
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            z = math.exp(x)
            s = z / (1.0 + z)
        return self._unary(s, s * (1.0 - s))

    def relu(self):
        return self._unary(self.value if self.value > 0 else 0.0, 1.0 if self.value > 0 else 0.0)

    def tanh(self):
        t = math.tanh(self.value)
        return self._unary(t, 1.0 - t * t)

    def exp(self):
        e = math.exp(self.value)
        return self._unary(e, e)

    def log(self):
        return self._unary(math.log(self.value), 1.0 / self.value)

    def backward(self):
        # topological order: every node after the nodes it was made from
        order, done = [], set()

        def visit(n):
            if id(n) in done:
                return
            done.add(id(n))
            for p, _ in n.edges:
                visit(p)
            order.append(n)

        visit(self)
        # d self / d node for this call, outputs first
        g = {id(self): 1.0}
        for n in reversed(order):
            gn = g.get(id(n), 0.0)
            for p, slope in n.edges:
                g[id(p)] = g.get(id(p), 0.0) + gn * slope
        # then add this call's gradients into .grad (leaves keep adding across calls)
        for n in order:
            n.grad += g.get(id(n), 0.0)
