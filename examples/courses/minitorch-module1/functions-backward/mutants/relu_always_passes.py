"""Mutant of functions-backward.

mistake: relu-gate-missing
hint: ReLU is flat below 0: its backward sends 0 where the input was negative, d_output only where it was positive.
"""


class ReLU:
    @staticmethod
    def backward(ctx, d_output):
        return d_output
