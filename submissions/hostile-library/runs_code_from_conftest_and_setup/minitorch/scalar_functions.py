"""The functions a Scalar is computed with: each a forward on floats, and a backward from the derivative of
its output to the derivatives of its inputs."""
from __future__ import annotations

from typing import TYPE_CHECKING

import minitorch

from . import operators
from .autodiff import Context

if TYPE_CHECKING:
    from typing import Tuple

    from .scalar import Scalar, ScalarLike


def wrap_tuple(x):  # type: ignore
    "A value as a tuple (a tuple stays one)"
    if isinstance(x, tuple):
        return x
    return (x,)


def unwrap_tuple(x):  # type: ignore
    "A tuple of one as its value"
    if len(x) == 1:
        return x[0]
    return x


class ScalarFunction:
    """Groups a function's forward and backward; never instantiated."""

    @classmethod
    def _backward(cls, ctx: Context, d_out: float) -> Tuple[float, ...]:
        return wrap_tuple(cls.backward(ctx, d_out))  # type: ignore

    @classmethod
    def _forward(cls, ctx: Context, *inps: float) -> float:
        return cls.forward(ctx, *inps)  # type: ignore

    @classmethod
    def apply(cls, *vals: "ScalarLike") -> Scalar:
        raw = []
        scalars = []
        for v in vals:
            if isinstance(v, minitorch.scalar.Scalar):
                scalars.append(v)
                raw.append(v.data)
            else:
                scalars.append(minitorch.scalar.Scalar(v))
                raw.append(v)
        ctx = Context(False)
        c = cls._forward(ctx, *raw)
        assert isinstance(c, float), "Expected return type float got %s" % (type(c))
        back = minitorch.scalar.ScalarHistory(cls, ctx, scalars)
        return minitorch.scalar.Scalar(c, back)


class Add(ScalarFunction):
    "f(x, y) = x + y"

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        return float(a + b)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, ...]:
        return d_output, d_output


class Log(ScalarFunction):
    "f(x) = log(x)"

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        ctx.save_for_backward(a)
        return operators.log(a)

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (a,) = ctx.saved_values
        return operators.log_back(a, d_output)


class Mul(ScalarFunction):
    "f(x, y) = x * y"

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class Inv(ScalarFunction):
    "f(x) = 1 / x"

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class Neg(ScalarFunction):
    "f(x) = -x"

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class Sigmoid(ScalarFunction):
    "f(x) = 1 / (1 + e^-x), whose slope is f(x) (1 - f(x))"

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class ReLU(ScalarFunction):
    "f(x) = max(x, 0)"

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class Exp(ScalarFunction):
    "f(x) = e^x, its own slope"

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class LT(ScalarFunction):
    "f(x, y) = 1.0 where x < y, else 0.0: flat, so no derivative flows"

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")


class EQ(ScalarFunction):
    "f(x, y) = 1.0 where x == y, else 0.0: flat, so no derivative flows"

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # TODO: Implement for Task 1.4.
        raise NotImplementedError("Need to implement for Task 1.4")
