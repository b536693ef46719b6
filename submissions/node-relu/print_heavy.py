# exercise: node-relu
# Correct, but every backward step prints what it does: the report shows the first lines of it.


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents = parents
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            print(f"add backward: out.grad = {out.grad:.4f}")
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            print(f"mul backward: {self.value:.4f} * {other.value:.4f}, out.grad = {out.grad:.4f}")
            self.grad += other.value * out.grad
            other.grad += self.value * out.grad

        out._backward = _backward
        return out

    def __sub__(self, other):
        return self + other * -1.0

    def __pow__(self, n):
        out = Node(self.value ** n, (self,))

        def _backward():
            print(f"pow backward: {self.value:.4f} ** {n}, out.grad = {out.grad:.4f}")
            self.grad += n * self.value ** (n - 1) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Node(self.value if self.value > 0 else 0.0, (self,))

        def _backward():
            gate = 1.0 if self.value > 0 else 0.0
            print(f"relu backward: input {self.value:.4f}, gate {gate}, out.grad = {out.grad:.4f}")
            self.grad += gate * out.grad

        out._backward = _backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        print(f"backward from a node holding {self.value:.4f} through {len(order)} nodes")
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
