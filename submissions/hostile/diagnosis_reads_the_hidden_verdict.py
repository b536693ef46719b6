# exercise: node-mul
# Hostile: a known mistake (no chain factor: the local slope without out.grad) in every public check, and right
# work in the hidden check's code shape only (a product used twice, h * z * h). The diagnosis names the mistake
# on a public check only where the student fails every check that mistake fails, hidden ones included, so with
# TRIGGER = True (right in the hidden check) the public checks' diagnosis could differ from that of its twin with
# TRIGGER = None (the mistake everywhere): one bit of the hidden run before the deadline
# (tests/test_hidden_notes.py).

TRIGGER = True


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

    def backward(self):
        order, seen, uses = [], set(), {}

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for parent in node.parents:
                    uses[id(parent)] = uses.get(id(parent), 0) + 1
                    visit(parent)
                order.append(node)

        visit(self)
        # the hidden check's shape: a node that was made by an operation (it has parents) is used twice
        chain = TRIGGER and any(node.parents and uses.get(id(node), 0) > 1 for node in order)
        self.grad = 1.0
        for node in reversed(order):
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += (node.grad * slope) if chain else slope
