"""Mutant of functions-forward.

mistake: less-or-equal
hint: LT is strict: x < y is 0.0 where x equals y.
"""


class LT:
    @staticmethod
    def forward(ctx, a, b):
        return 1.0 if a <= b else 0.0
