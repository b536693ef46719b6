"""Mutant of functions-forward.

mistake: sigmoid-sign
hint: The sigmoid is 1 / (1 + e^-x): with e^x in the denominator it gives 1 - sigmoid(x).
"""
import math


class Sigmoid:
    @staticmethod
    def forward(ctx, a):
        out = 1.0 / (1.0 + math.exp(a))
        ctx.save_for_backward(out)
        return out
