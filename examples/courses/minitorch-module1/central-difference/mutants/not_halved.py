"""Mutant of central-difference.

mistake: step-not-doubled
hint: The two points are 2 * epsilon apart: divide their difference by 2 * epsilon, not epsilon.
"""


def central_difference(f, *vals, arg=0, epsilon=1e-6):
    above = list(vals)
    below = list(vals)
    above[arg] = above[arg] + epsilon
    below[arg] = below[arg] - epsilon
    return (f(*above) - f(*below)) / epsilon
