"""Mutant of elementwise.

mistake: quotient-sign
hint: The derivative of a / b with respect to b is -a / b**2: mind the minus sign.
"""


class EWiseDiv:
    def gradient(self, out_grad, node):
        top, bottom = node.inputs
        return out_grad / bottom, out_grad * top / (bottom * bottom)
