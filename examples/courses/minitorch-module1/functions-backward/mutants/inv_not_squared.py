"""Mutant of functions-backward.

mistake: inverse-slope-not-squared
hint: The derivative of 1 / x is -1 / x ** 2: square x.
"""


class Inv:
    @staticmethod
    def backward(ctx, d_output):
        (a,) = ctx.saved_values
        return -d_output / a
