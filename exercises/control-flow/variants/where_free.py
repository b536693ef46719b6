# exercise: control-flow
"""Variant of control-flow: the branch as a conditional expression, the loop as functools.reduce over k copies of x,
and the numbers read with float()."""

import functools
import operator


def g(x):
    y = x**2 if x.item() > 0 else x * -3
    y.backward()
    return float(y), float(x.grad), y.grad_fn.name()


def power_loop(x, k):
    p = functools.reduce(operator.mul, [x] * k)
    p.backward()
    return float(p), float(x.grad)
