"""Mutant of matmul.

mistake: batch-averaged
hint: A broadcast operand's gradient is the sum over the batch dimensions, not their mean: each copy of it
  contributed to the output, and each one's gradient counts in full.
"""


class MatMul:
    def gradient(self, out_grad, node):
        left, right = node.inputs
        grad_left = matmul(out_grad, transpose(right))
        grad_right = matmul(transpose(left), out_grad)
        if len(grad_left.shape) > len(left.shape):
            batch = grad_left.shape[0]
            grad_left = summation(grad_left, tuple(range(len(grad_left.shape) - len(left.shape)))) / batch
        if len(grad_right.shape) > len(right.shape):
            batch = grad_right.shape[0]
            grad_right = summation(grad_right, tuple(range(len(grad_right.shape) - len(right.shape)))) / batch
        return grad_left, grad_right
