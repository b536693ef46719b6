"""Mutant of integration.

mistake: sigmoid-no-chain-factor
hint: Backward multiplies the function's own slope, s * (1 - s), by d_output (the chain rule).
"""


class Sigmoid:
    @staticmethod
    def backward(ctx, d_output):
        (out,) = ctx.saved_values
        return out * (1.0 - out)
