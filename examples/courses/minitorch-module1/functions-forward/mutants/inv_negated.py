"""Mutant of functions-forward.

mistake: inverse-negated
hint: Inv.forward is 1 / x, with no minus sign (the minus belongs to its slope, -1 / x**2, in backward).
"""


class Inv:
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return -1.0 / a
