"""Variant of scalar: x - y as x + (-y), through the Scalar's own operators."""


class Scalar:
    def __sub__(self, b):
        return self + (-b)
