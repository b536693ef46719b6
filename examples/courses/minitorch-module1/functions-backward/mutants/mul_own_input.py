"""Mutant of functions-backward.

mistake: mul-own-input
hint: The derivative of a * b in a is b, and in b is a: each input gets d_output times the other one.
"""


class Mul:
    @staticmethod
    def backward(ctx, d_output):
        a, b = ctx.saved_values
        return a * d_output, b * d_output
