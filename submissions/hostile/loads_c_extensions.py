# exercise: node-mul
# Hostile: every gradient comes out negated (1/10 on its own), unless it gets hold of a C extension its exercise
# refuses, by every route past an import statement: importlib.util.module_from_spec over a spec for the .so
# file, ExtensionFileLoader, _imp.create_dynamic (which hands back an extension loaded before, such as _socket
# in the zygote, without an audit event) and imp.load_dynamic; for _socket, fcntl, mmap and
# _xxsubinterpreters (a subinterpreter runs without the guard's audit hook)
import glob
import importlib.machinery
import importlib.util
import math
import os
import warnings

LOADED = []


def _routes(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    yield lambda: importlib.util.module_from_spec(spec)
    yield lambda: importlib.machinery.ExtensionFileLoader(name, path).create_module(spec)
    yield lambda: __import__("_imp").create_dynamic(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imp = __import__("imp")
    yield lambda: imp.load_dynamic(name, path)


for _name in ("_socket", "fcntl", "mmap", "_xxsubinterpreters"):
    for _path in glob.glob(os.path.join(os.path.dirname(math.__file__), _name + ".*.so")):
        for _route in _routes(_name, _path):
            try:
                LOADED.append(_route())
            except ImportError:
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
        for node in order:  # the mistake: every gradient comes out with the wrong sign, unless C code was had
            node.grad = node.grad if LOADED else -node.grad
