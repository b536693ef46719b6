"""A float that remembers the function and inputs it was computed from, so that its derivatives can be sent
back to the inputs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence, Tuple, Type, Union

import numpy as np

from .autodiff import Context, Variable, backpropagate, central_difference
from .scalar_functions import EQ, LT, Add, Exp, Inv, Log, Mul, Neg, ReLU, ScalarFunction, Sigmoid

ScalarLike = Union[float, int, "Scalar"]


@dataclass
class ScalarHistory:
    """The function that made a Scalar, its context, and the Scalars it was given (none on a leaf)."""

    last_fn: Optional[Type[ScalarFunction]] = None
    ctx: Optional[Context] = None
    inputs: Sequence[Scalar] = ()


_var_count = 0


class Scalar:
    """A number whose arithmetic records its history, through ScalarFunctions only."""

    history: Optional[ScalarHistory]
    derivative: Optional[float]
    data: float
    unique_id: int
    name: str

    def __init__(self, v: float, back: ScalarHistory = ScalarHistory(), name: Optional[str] = None):
        global _var_count
        _var_count += 1
        self.unique_id = _var_count
        self.data = float(v)
        self.history = back
        self.derivative = None
        self.name = name if name is not None else str(self.unique_id)

    def __repr__(self) -> str:
        return "Scalar(%f)" % self.data

    def __mul__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(self, b)

    def __truediv__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(self, Inv.apply(b))

    def __rtruediv__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(b, Inv.apply(self))

    def __add__(self, b: ScalarLike) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def __bool__(self) -> bool:
        return bool(self.data)

    def __lt__(self, b: ScalarLike) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def __gt__(self, b: ScalarLike) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def __eq__(self, b: ScalarLike) -> Scalar:  # type: ignore[override]
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def __sub__(self, b: ScalarLike) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def __neg__(self) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def __radd__(self, b: ScalarLike) -> Scalar:
        return self + b

    def __rmul__(self, b: ScalarLike) -> Scalar:
        return self * b

    def log(self) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def exp(self) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def sigmoid(self) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def relu(self) -> Scalar:
        # TODO: Implement for Task 1.2.
        raise NotImplementedError("Need to implement for Task 1.2")

    def accumulate_derivative(self, x: Any) -> None:
        """Add `x` to this leaf's derivative."""
        assert self.is_leaf(), "Only leaf variables can have derivatives."
        if self.derivative is None:
            self.derivative = 0.0
        self.derivative += x

    def is_leaf(self) -> bool:
        "Made by the user, not by a function"
        return self.history is not None and self.history.last_fn is None

    def is_constant(self) -> bool:
        return self.history is None

    @property
    def parents(self) -> Iterable[Variable]:
        assert self.history is not None
        return self.history.inputs

    def chain_rule(self, d_output: Any) -> Iterable[Tuple[Variable, Any]]:
        """Each input of the function that made this Scalar, with its share of `d_output`."""
        # TODO: Implement for Task 1.3.
        raise NotImplementedError("Need to implement for Task 1.3")

    def backward(self, d_output: Optional[float] = None) -> None:
        """Fill in the derivative of every leaf this Scalar was made from (d_output: 1.0 unless given)."""
        if d_output is None:
            d_output = 1.0
        backpropagate(self, d_output)


def derivative_check(f: Any, *scalars: Scalar) -> None:
    """Assert that backpropagation through `f` agrees with central differences at `scalars`."""
    out = f(*scalars)
    out.backward()
    for i, x in enumerate(scalars):
        check = central_difference(f, *scalars, arg=i)
        assert x.derivative is not None
        np.testing.assert_allclose(x.derivative, check.data, 1e-2, 1e-2,
                                   err_msg=f"derivative of argument {i}: {x.derivative} by backpropagation, "
                                           f"{check.data} by central differences")
