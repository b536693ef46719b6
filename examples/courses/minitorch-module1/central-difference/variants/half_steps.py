"""Variant of central-difference: the two points half a step either side, divided by one step."""


def central_difference(f, *vals, arg=0, epsilon=1e-6):
    above = [v + epsilon / 2 if i == arg else v for i, v in enumerate(vals)]
    below = [v - epsilon / 2 if i == arg else v for i, v in enumerate(vals)]
    return (f(*above) - f(*below)) / epsilon
