"""Mutant of central-difference.

mistake: one-sided-difference
hint: A central difference evaluates f epsilon above and epsilon below the point, and divides by 2 * epsilon;
    f(x + epsilon) - f(x) is one-sided, and off by about epsilon times the curvature.
"""


def central_difference(f, *vals, arg=0, epsilon=1e-6):
    above = list(vals)
    above[arg] = above[arg] + epsilon
    return (f(*above) - f(*vals)) / epsilon
