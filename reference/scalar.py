"""The lessons' tiny autograd engine, completed: a pure-Python scalar `Node`."""

from __future__ import annotations

import math


class Node:
    """A number that remembers how it was made, so `backward()` can find every gradient."""

    __slots__ = ("grad", "parents", "slopes", "value")

    def __init__(
        self, value: float, parents: tuple[Node, ...] = (), slopes: tuple[float, ...] = ()
    ) -> None:
        self.value, self.grad = float(value), 0.0
        self.parents, self.slopes = parents, slopes  # local slope to each parent

    def __repr__(self) -> str:
        return f"Node({self.value!r}, grad={self.grad!r})"

    # Each operation stores its inputs and the local slope to each: the
    # chain rule needs no more. New nodes are of the operand's own class, so
    # that a subclass (grader.judge.diagnose.slips) sees every operation.
    def __add__(self, other: Node | float) -> Node:
        other = self._lift(other)
        return type(self)(self.value + other.value, (self, other), (1.0, 1.0))

    def __mul__(self, other: Node | float) -> Node:
        other = self._lift(other)
        return type(self)(self.value * other.value, (self, other), (other.value, self.value))

    def __pow__(self, n: float) -> Node:
        return type(self)(self.value**n, (self,), (n * self.value ** (n - 1),))

    def __neg__(self) -> Node:
        return self * -1.0

    def __sub__(self, other: Node | float) -> Node:
        return self + (-self._lift(other))

    def __truediv__(self, other: Node | float) -> Node:
        return self * self._lift(other) ** -1

    def __radd__(self, other: float) -> Node:
        return self._lift(other) + self

    def __rmul__(self, other: float) -> Node:
        return self._lift(other) * self

    def __rsub__(self, other: float) -> Node:
        return self._lift(other) - self

    def __rtruediv__(self, other: float) -> Node:
        return self._lift(other) / self

    def sigmoid(self) -> Node:
        # Two branches so that exp never overflows for large |x|.
        if self.value >= 0:
            s = 1.0 / (1.0 + math.exp(-self.value))
        else:
            e = math.exp(self.value)
            s = e / (1.0 + e)
        return type(self)(s, (self,), (s * (1.0 - s),))

    def relu(self) -> Node:
        # The slope at exactly 0 is 0, as in torch.
        return type(self)(max(self.value, 0.0), (self,), (1.0 if self.value > 0 else 0.0,))

    def tanh(self) -> Node:
        t = math.tanh(self.value)
        return type(self)(t, (self,), (1.0 - t * t,))

    def exp(self) -> Node:
        e = math.exp(self.value)
        return type(self)(e, (self,), (e,))

    def log(self) -> Node:
        return type(self)(math.log(self.value), (self,), (1.0 / self.value,))

    def _lift(self, x: Node | float) -> Node:
        return x if isinstance(x, Node) else type(self)(x)

    def backward(self) -> None:
        order: list[Node] = []
        seen: set[int] = set()

        def visit(node: Node) -> None:  # depth-first: inputs before outputs
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):  # outputs first, so each node's grad is complete when used
            for parent, slope in zip(node.parents, node.slopes, strict=True):
                parent.grad += node.grad * slope
