"""Mutant of functions-forward.

mistake: relu-abs
hint: ReLU is 0 below zero; it does not flip negative numbers to positive ones.
"""


class ReLU:
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return float(abs(a))
