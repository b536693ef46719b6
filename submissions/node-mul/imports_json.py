# exercise: node-mul
# A correct answer that imports what a student's engine often does besides math: json, for an encoder of its
# values (to save a graph), with functools, collections, dataclasses and os
import collections
import dataclasses
import functools
import json
import math
import os


class NodeEncoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Node):
            return {"value": o.value, "grad": o.grad, "parents": [id(p) for p in o.parents]}
        return super().default(o)


def dump(node):
    return json.dumps(node, cls=NodeEncoder)


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

    def to_json(self):
        return dump(self)

    def backward(self):
        self.saved = json.loads(self.to_json())  # the graph, saved as text and read back, as a student's engine might
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
