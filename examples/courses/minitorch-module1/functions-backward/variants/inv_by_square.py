"""Variant of functions-backward: Inv's backward as -(1 / x) ** 2 times d_output, from the input it saved."""


class Inv:
    @staticmethod
    def backward(ctx, d_output):
        (a,) = ctx.saved_values
        return -((1.0 / a) ** 2) * d_output
