# exercise: value-backward
"""Mutant of value-backward.

mistake: order-not-reversed
hint: Walk the topological order backwards (reversed(topo)): outputs first, so each node's grad is complete before it is passed on.
"""

class Value:
    """A scalar that remembers how it was made, in micrograd's names: data, grad, _prev, _backward."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None  # sends this node's grad on to the nodes it was made from
        # insertion-ordered where micrograd keeps a set: this mistake's values hang on the order
        # of the walk, and a set's order on where its nodes lie in memory; a known mistake's own
        # run must give the same values wherever, and after whatever, it runs
        self._prev = dict.fromkeys(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, n):
        assert isinstance(n, (int, float)), "only int and float powers"
        out = Value(self.data**n, (self,), f"**{n}")

        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(0.0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

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
        return self * other**-1

    def __rtruediv__(self, other):  # other / self
        return other * self**-1

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):  # every node after the nodes it was made from
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1.0
        for v in topo:  # outputs first: each grad is complete before it is passed on
            v._backward()
