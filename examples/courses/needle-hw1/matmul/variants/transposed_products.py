"""Variant of matmul: each operand's gradient as the transpose of a product, (b @ g^T)^T and (g^T @ a)^T, summed
over the batch axes an operand lacks in a loop of single-axis sums."""


class MatMul:
    def gradient(self, out_grad, node):
        left, right = node.inputs
        grad_left = transpose(matmul(right, transpose(out_grad)))
        grad_right = transpose(matmul(transpose(out_grad), left))
        while len(grad_left.shape) > len(left.shape):
            grad_left = summation(grad_left, (0,))
        while len(grad_right.shape) > len(right.shape):
            grad_right = summation(grad_right, (0,))
        return grad_left, grad_right
