"""Mutant of central-difference.

mistake: arg-ignored
hint: Move only argument number `arg` (vals[arg]); the others stay as they are.
"""


def central_difference(f, *vals, arg=0, epsilon=1e-6):
    above = list(vals)
    below = list(vals)
    above[0] = above[0] + epsilon
    below[0] = below[0] - epsilon
    return (f(*above) - f(*below)) / (2 * epsilon)
