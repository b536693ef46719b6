"""Compared values as plain JSON at full precision, for
those who analyse reports (rounding is the renderers')."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

from grader.core.values import (
    Array,
    ErrorInfo,
    Flag,
    Nothing,
    Number,
    Opaque,
    Seq,
    Text,
    Value,
    clip,
)
from grader.run.inputs import InputValue, TensorInput

#: what JSON has no number for, spelled as Python and numpy read it back (float("nan"))
_NOT_FINITE = {math.inf: "inf", -math.inf: "-inf"}


def plain(value: Value) -> Any:
    """A number as a JSON number, a tensor as nested lists (a 0-d one as its
    number), a list or tuple as a list; nan and infinities as the strings
    "nan", "inf" and "-inf"; what is not data as an object naming its type."""
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


#: the most numbers (or items) a got value keeps in a report when it is
#: bigger than the expected value: beyond, its prefix, shape and size (a 1.3
#: KB upload can return 150,000 floats; its report must not be megabytes)
KEEP = 64
#: how many of a cut value's first numbers (or items) its summary keeps
PREFIX = 16


def plain_got(got: Value, want: Value) -> Any:
    """`plain(got)`, unless it holds more than `want` and more than KEEP numbers:
    then what a student reads of it, {"truncated": true, "kind", "shape", "size",
    "prefix"}: its first PREFIX numbers (or other leaves), flat."""
    size = _size(got)
    if size <= max(KEEP, _size(want)) or not isinstance(got, Seq | Array):
        return plain(got)
    shape = list(got.shape) if isinstance(got, Array) else _seq_shape(got)
    prefix = list(itertools.islice(_leaves(got), PREFIX))
    return {
        "truncated": True,
        "kind": "tensor" if isinstance(got, Array) else got.kind,
        "shape": shape,
        "size": size,
        "prefix": prefix,
    }


def _seq_shape(value: Value) -> list[int]:
    """A nested list's lengths along its first items:
    [150000] for a flat list, [3, 4] for 3 lists of 4."""
    shape: list[int] = []
    while isinstance(value, Seq) and len(shape) < 16:
        shape.append(len(value.items))
        if not value.items:
            break
        value = value.items[0]
    return shape


def _leaves(value: Value) -> Iterator[Any]:
    """A value's numbers (and other leaves) in order, each as `plain` writes it, long text cut."""
    match value:
        case Seq(items):
            for item in items:
                yield from _leaves(item)
        case Array(_, data):
            yield from (_number(x) for x in data)
        case Text(v):
            yield clip(v, 80)
        case Opaque(type_name, text):
            yield {"object": type_name, "repr": clip(text, 80)}
        case _:
            yield plain(value)


def _size(value: Value) -> int:
    """How many numbers (and other leaves, an empty list one of them) a value holds."""
    match value:
        case Seq(items):
            return sum(_size(item) for item in items) if items else 1
        case Array(_, data):
            return len(data)
    return 1


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
    return [_nested(shape[1:], flat[i * stride : (i + 1) * stride]) for i in range(shape[0])]
