"""How a slope read on a localization probe is wrong,
against the reference's: negated, from the output, other.

grader.judge.diagnose.faults reads each operation's probes; these compare one number with what the
reference gives, and with the forms a slope written from the output instead of the input takes.
"""

from __future__ import annotations

import math

from grader.core.compare import fmt
from grader.judge.diagnose.localize import EXPONENT
from grader.judge.report import How
from reference.scalar import Node


def how_wrong(
    got: float | None,
    want: float | None,
    value: float | None,
    at_output: float | None = None,
    at_input: float | None = None,
) -> How:
    """How one slope is wrong; from-output covers the
    input and the output mixed up, either way round."""
    if got is None or want is None:
        return "wrong-local"
    if close(got, -want):
        return "negated"
    if value is not None and (
        close(got, want * value) or close(got, value) or close(got, at_output)
    ):
        return "from-output"
    if at_input is not None and close(got, at_input):
        return "from-output"
    return "wrong-local"


#: slopes written with the output (s, t, e): the same
#: formula with the input in its place is the classic slip
OUTPUT_FORMS = {"sigmoid": lambda x: x * (1 - x), "tanh": lambda x: 1 - x * x, "exp": lambda x: x}


def output_form(method: str, x: float | None) -> float | None:
    form = OUTPUT_FORMS.get(method)
    return None if form is None or x is None else form(x)


def slope_at(method: str, value: float | None) -> float | None:
    """The reference's local slope of `method` at the output's value instead of the input's."""
    if value is None:
        return None
    try:
        leaf = Node(value)
        out = leaf**EXPONENT if method == "__pow__" else getattr(leaf, method)()
        out.backward()
    except (AttributeError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    return leaf.grad


def close(got: float | None, want: float | None) -> bool:
    if got is None or want is None:
        return got is None and want is None
    if math.isnan(got) or math.isnan(want):
        return False
    return abs(got - want) <= 1e-9 + 1e-6 * abs(want)


def neg(value: float | None) -> float | None:
    return None if value is None else -value


def show(value: float | None) -> str:
    return "nothing" if value is None else fmt(value)
