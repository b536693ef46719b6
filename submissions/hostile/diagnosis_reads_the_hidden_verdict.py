# exercise: node-mul
# Hostile: a known mistake (no chain factor: the local slope without out.grad) in every public check, and right
# work in the hidden check's code shape only (a product used twice, h * z * h). The full diagnosis names the
# mistake on a public check only where the student fails every check that mistake fails, hidden ones included, so
# with the trigger on (right in the hidden check) it names the localized rule, and with TRIGGER = None (the mistake
# everywhere) the known mistake: one bit of the hidden run. Before the deadline a student's view shows each public
# check's diagnosis made on the public checks' evidence alone (grader.judge.diagnose.public_diagnosis), the same for both
# twins, byte for byte (tests/test_hidden_notes.py). It scores the product's value and the hidden check: 2 of 10.

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
