"""Mutant of elementwise.

mistake: log-times-input
hint: The derivative of log(a) is 1 / a: divide out_grad by the input, do not multiply.
"""


class Log:
    def gradient(self, out_grad, node):
        return out_grad * node.inputs[0]
