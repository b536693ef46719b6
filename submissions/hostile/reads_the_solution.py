# exercise: node-mul
# Hostile: looks for the exercise's solution, mutants and hidden checks on disk and through /proc, and uses them if found
import sys

os = sys.modules["os"]  # the allowlist refuses `import os`; one who read the grader takes it from sys.modules

found = None
routes = ["/work/main/exercises/node-mul/solution.py", "/autograder/source/exercises/node-mul/solution.py",
          os.path.join(os.getcwd(), "../exercises/node-mul/solution.py")]
for pid in [os.getppid(), *[p for p in os.listdir("/proc") if p.isdigit()]]:
    routes.append(f"/proc/{pid}/cwd/exercises/node-mul/solution.py")
    routes.append(f"/proc/{pid}/root/work/main/exercises/node-mul/solution.py")
for top in ("/work", "/autograder", "/tmp", "/home", "/root", "/srv"):
    for folder, subfolders, files in os.walk(top):
        if folder.count("/") > 5:
            subfolders.clear()
        if folder.endswith("exercises/node-mul"):
            routes.append(os.path.join(folder, "solution.py"))
for route in routes:
    try:
        with open(route) as f:
            found = f.read()
        print("READ", route)
        break
    except OSError:
        continue
for route in ["/work/main/exercises/node-mul/exercise.yaml", "/work/main/exercises/node-mul/mutants"]:
    try:
        print("READ", route, len(os.listdir(route) if os.path.isdir(route) else open(route).read()))
    except OSError as e:
        print("denied:", route, type(e).__name__)
if found:
    exec(found)
else:
    print("no solution found after", len(routes), "tries")

import math


class Node:
    """A number that remembers how it was made, so backward() can find every gradient.

    Node(value, parents=(), slopes=()) is the lessons' signature. This engine gives each node a
    _backward function instead of stored slopes: it sends the node's grad on to its parents.
    """

    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes
        self._backward = lambda: None

    def __repr__(self):
        return f"Node({self.value}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            self.grad += self.value * out.grad
            other.grad += other.value * out.grad

        out._backward = _backward
        return out

    def __pow__(self, n):
        out = Node(self.value**n, (self,))

        def _backward():
            self.grad += n * self.value ** (n - 1) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        out = Node(s, (self,))

        def _backward():
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Node(max(self.value, 0.0), (self,))

        def _backward():
            self.grad += (1.0 if self.value > 0 else 0.0) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):  # -self
        return self * -1

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __radd__(self, other):  # other + self
        return self + other

    def __rsub__(self, other):  # other - self
        return (-self) + other

    def __rmul__(self, other):  # other * self
        return self * other

    def backward(self):
        order, seen = [], set()

        def visit(node):  # inputs before outputs
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):  # outputs first: each grad is complete before it is passed on
            node._backward()
