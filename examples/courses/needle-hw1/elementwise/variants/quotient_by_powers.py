"""Variant of elementwise: EWiseDiv's gradient with powers, out_grad * b ** -1 and -out_grad * a * b ** -2."""


class EWiseDiv:
    def gradient(self, out_grad, node):
        top, bottom = node.inputs
        return out_grad * power_scalar(bottom, -1), -(out_grad * top * power_scalar(bottom, -2))
