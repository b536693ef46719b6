"""Mutant of matmul.

mistake: operands-exchanged
hint: a's gradient is out_grad @ b^T and b's is a^T @ out_grad: each operand's gradient uses the other operand,
  transposed, on the side where the operand stood.
"""


class MatMul:
    def gradient(self, out_grad, node):
        left, right = node.inputs
        grad_left = matmul(transpose(right), out_grad)
        grad_right = matmul(out_grad, transpose(left))
        return grad_left, grad_right
