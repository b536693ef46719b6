"""Mutant of functions-backward.

mistake: exp-of-exp
hint: The slope of e^x is e^x, the output itself; exponentiating the saved output again gives e^(e^x).
"""
import math


class Exp:
    @staticmethod
    def backward(ctx, d_output):
        (out,) = ctx.saved_values
        return math.exp(out) * d_output
