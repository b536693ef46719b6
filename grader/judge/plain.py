"""Compared values as plain JSON at full precision, for those who analyse reports (rounding is the renderers')."""

from __future__ import annotations

import math
from typing import Any

from grader.core.values import Array, ErrorInfo, Flag, Nothing, Number, Opaque, Seq, Text, Value
from grader.run.inputs import InputValue, TensorInput

#: what JSON has no number for, spelled as Python and numpy read it back (float("nan"))
_NOT_FINITE = {math.inf: "inf", -math.inf: "-inf"}


def plain(value: Value) -> Any:
    """A number as a JSON number, a tensor as nested lists (a 0-d one as its number), a list or tuple as a list;
    nan and infinities as the strings "nan", "inf" and "-inf"; what is not data as an object naming its type."""
    match value:
        case Number(v):
            return _number(v)
        case Flag(v) | Text(v):
            return v
        case Nothing():
            return None
        case Seq(items):
            return [plain(item) for item in items]
        case Array(shape, data):
            return _nested(shape, [_number(x) for x in data])
        case Opaque(type_name, text):
            return {"object": type_name, "repr": text}
        case ErrorInfo(type_name, message):
            return {"error": type_name, "message": message}
    raise TypeError(f"not a Value: {value!r}")


def plain_input(value: InputValue) -> Any:
    """A probe's input as `plain` writes values: a number, or a tensor's values as nested lists."""
    if isinstance(value, TensorInput):
        return _nested(value.shape, [_number(x) for x in value.data])
    return value if isinstance(value, int) else _number(value)


def _number(x: float) -> float | str:
    return "nan" if math.isnan(x) else _NOT_FINITE.get(x, x)


def _nested(shape: tuple[int, ...], flat: list[float | str]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    stride = math.prod(shape[1:])
    return [_nested(shape[1:], flat[i * stride:(i + 1) * stride]) for i in range(shape[0])]
