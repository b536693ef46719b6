"""Mutant of elementwise.

mistake: product-swapped
hint: d(a * b)/da is b, not a: each operand's gradient is out_grad times the other operand.
"""


class EWiseMul:
    def gradient(self, out_grad, node):
        left, right = node.inputs
        return out_grad * left, out_grad * right
