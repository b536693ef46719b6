"""Mutant of matmul.

mistake: batch-not-summed
hint: Where one operand has batch dimensions the other lacks, it was broadcast over them: sum its gradient over
  those leading axes (summation(grad, axes)), so that the gradient has the operand's own shape.
"""


class MatMul:
    def gradient(self, out_grad, node):
        left, right = node.inputs
        return matmul(out_grad, transpose(right)), matmul(transpose(left), out_grad)
