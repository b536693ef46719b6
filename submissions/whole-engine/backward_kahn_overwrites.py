# exercise: tiny-engine
"""Lesson-style Node (parents + local slopes). backward() counts, for every node, how many
nodes use it, and hands a node's grad on only once all of its users have reported in."""
import math


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value = float(value)
        self.grad = 0.0
        self.parents = list(parents)
        self.slopes = list(slopes)

    @staticmethod
    def lift(x):
        return x if isinstance(x, Node) else Node(x)

    def __add__(self, other):
        other = Node.lift(other)
        return Node(self.value + other.value, [self, other], [1.0, 1.0])

    def __mul__(self, other):
        other = Node.lift(other)
        return Node(self.value * other.value, [self, other], [other.value, self.value])

    def __neg__(self):
        return Node(-self.value, [self], [-1.0])

    def __sub__(self, other):
        return self + (-Node.lift(other))

    def __rsub__(self, other):
        return Node.lift(other) + (-self)

    def __pow__(self, n):
        return Node(self.value ** n, [self], [n * self.value ** (n - 1)])

    def __truediv__(self, other):
        return self * Node.lift(other) ** -1

    def __rtruediv__(self, other):
        return Node.lift(other) * self ** -1

    __radd__ = __add__
    __rmul__ = __mul__

    def sigmoid(self):
        s = 1.0 / (1.0 + math.exp(-self.value))
        return Node(s, [self], [s * (1.0 - s)])

    def relu(self):
        on = 1.0 if self.value > 0 else 0.0
        return Node(self.value * on, [self], [on])

    def tanh(self):
        t = math.tanh(self.value)
        return Node(t, [self], [1.0 - t * t])

    def exp(self):
        e = math.exp(self.value)
        return Node(e, [self], [e])

    def log(self):
        return Node(math.log(self.value), [self], [1.0 / self.value])

    def backward(self):
        # how many times each node is used inside this graph
        users = {}
        stack, seen = [self], {id(self)}
        while stack:
            n = stack.pop()
            for p in n.parents:
                users[id(p)] = users.get(id(p), 0) + 1
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append(p)
        self.grad = 1.0
        ready = [self]
        while ready:
            n = ready.pop()
            for p, s in zip(n.parents, n.slopes):
                p.grad = n.grad * s
                users[id(p)] -= 1
                if users[id(p)] == 0:
                    ready.append(p)
