# exercise: tiny-engine
"""micrograd-style engine: _prev holds the children, _backward applies the chain rule locally."""
import math


class Node:
    def __init__(self, value, _children=(), _op=''):
        self.value = float(value)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)  # in order: with grads overwritten, a set would make the result depend on ids
        self._op = _op

    def __repr__(self):
        return f"Node(value={self.value}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other), '+')

        def _backward():
            self.grad = out.grad
            other.grad = out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other), '*')

        def _backward():
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = Node(self.value ** other, (self,), f'**{other}')

        def _backward():
            self.grad += (other * self.value ** (other - 1)) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Node(0.0 if self.value < 0 else self.value, (self,), 'ReLU')

        def _backward():
            self.grad += (out.value > 0) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        x = self.value
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = Node(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def sigmoid(self):
        out = Node(1 / (1 + math.exp(-self.value)), (self,), 'sigmoid')

        def _backward():
            self.grad += out.value * (1 - out.value) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Node(math.exp(self.value), (self,), 'exp')

        def _backward():
            self.grad += out.value * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Node(math.log(self.value), (self,), 'log')

        def _backward():
            self.grad += (1 / self.value) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)

        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __neg__(self):  # -self
        return self * -1

    def __radd__(self, other):  # other + self
        return self + other

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __rsub__(self, other):  # other - self
        return other + (-self)

    def __rmul__(self, other):  # other * self
        return self * other

    def __truediv__(self, other):  # self / other
        return self * other ** -1

    def __rtruediv__(self, other):  # other / self
        return other * self ** -1
