"""Compare an expected plain value with a got one, every element, and say how they differ."""

from __future__ import annotations

import math

from grader.core.numeric import Tolerance
from grader.core.values import Array, ErrorInfo, Flag, Nothing, Number, Opaque, Seq, Text, Value

#: how many elements of a large array a message shows
PREVIEW = 6
#: how many items of a list a mismatch in length shows, so a student sees what is missing
LONG = 16
#: an array's excerpt: this many elements of its last axis, this many rows of every other
EXCERPT_LAST, EXCERPT_OUTER = 4, 2
#: how many neighbouring elements of the first difference a message shows
ROW = 6


def compare(expected: Value, got: Value, tol: Tolerance) -> str | None:
    """None when `got` matches `expected` within `tol`;
    otherwise one sentence saying how it differs."""
    if isinstance(got, ErrorInfo) and not isinstance(expected, ErrorInfo):
        return f"expected {show(expected)}, but reading it raised {got.describe()}"
    match expected:
        case Number(want):
            have = _as_number(got)
            if have is None:
                return f"expected {show(expected)}, got {describe(got)}"
            if not tol.close(have, want):
                a, b = show_pair(want, have)
                return f"expected {a}, got {b}"
            return None
        case Array():
            return _compare_arrays(expected, got, tol)
        case Seq(items):
            if not isinstance(got, Seq):
                return f"expected a {expected.kind} of {len(items)}, got {describe(got)}"
            if len(got.items) != len(items):
                pairs = enumerate(zip(items, got.items, strict=False))  # up to the shorter one
                first = next((i for i, (a, b) in pairs if compare(a, b, tol)), None)
                where = f"; they first differ at [{first}]" if first is not None else ""
                return (
                    f"expected a {expected.kind} of {len(items)}: {show(expected, LONG)}, got one "
                    f"of {len(got.items)}: {show(got, LONG)}{where}"
                )
            for index, (want_item, got_item) in enumerate(zip(items, got.items, strict=True)):
                problem = compare(want_item, got_item, tol)
                if problem is not None:
                    return f"item [{index}]: {problem}"
            return None
        case Flag() | Text() | Nothing():
            if got == expected:
                return None
            return (
                _type_mismatch(expected, got) or f"expected {show(expected)}, got {describe(got)}"
            )
        case ErrorInfo(type_name):
            if isinstance(got, ErrorInfo) and got.type_name == type_name:
                return None
            return f"expected {type_name} to be raised, got {describe(got)}"
        case Opaque():
            return (
                f"the expected value is not plain data ({show(expected)}); this exercise needs "
                "fixing"
            )
    raise TypeError(f"not a Value: {expected!r}")


#: type names a probe observes (`type(v).__name__`), as a person says them
TYPE_NAMES = {
    "float": "a plain float",
    "int": "an int",
    "bool": "a bool",
    "str": "a str",
    "list": "a list",
    "tuple": "a tuple",
    "dict": "a dict",
    "NoneType": "None",
    "Tensor": "a torch Tensor",
    "Parameter": "a torch Parameter",
    "ndarray": "a numpy array",
    "float64": "a numpy float64",
    "float32": "a numpy float32",
    "Node": "a Node",
}
#: what turns the one into the other, where the fix is that short
_TYPE_FIXES = {
    ("float", "Tensor"): "call `.item()` to turn a one-number tensor into a float",
    ("float", "Parameter"): "call `.item()` to turn a one-number tensor into a float",
    ("float", "ndarray"): "call `.item()` to turn a one-number array into a float",
    ("float", "float64"): "wrap it in float()",
    ("float", "float32"): "wrap it in float()",
    ("float", "int"): "wrap it in float()",
    ("list", "tuple"): "wrap it in list()",
    ("tuple", "list"): "wrap it in tuple()",
}


def _type_mismatch(expected: Value, got: Value) -> str | None:
    """Two observed type names worded for a person ("a torch Tensor
    where a plain float was expected: call `.item()`"); None unless both
    are type names this module knows, so that no other text is misread."""
    if not (isinstance(expected, Text) and isinstance(got, Text)):
        return None
    want, have = TYPE_NAMES.get(expected.value), TYPE_NAMES.get(got.value)
    if want is None or have is None:
        return None
    fix = _TYPE_FIXES.get((expected.value, got.value))
    return f"{have} where {want} was expected" + (f": {fix}" if fix else "")


def _as_number(value: Value) -> float | None:
    if isinstance(value, Number):
        return value.value
    if isinstance(value, Array) and value.shape == ():  # a 0-d tensor is a number to a student
        return value.data[0]
    return None


def _compare_arrays(expected: Array, got: Value, tol: Tolerance) -> str | None:
    """Shape first; then how many elements differ, the
    first and the worst, the largest error, and an excerpt."""
    if not isinstance(got, Array):
        return f"expected a tensor of shape {_shape(expected.shape)}, got {describe(got)}"
    if got.shape != expected.shape:
        return f"expected shape {_shape(expected.shape)}, got shape {_shape(got.shape)}"
    bad = [
        i
        for i, (w, h) in enumerate(zip(expected.data, got.data, strict=True))
        if not tol.close(h, w)
    ]
    if not bad:
        return None
    first, worst = bad[0], max(bad, key=lambda i: _error(expected.data[i], got.data[i]))
    a, b = show_pair(expected.data[first], got.data[first])
    text = f"{len(bad)} of {len(expected.data)} elements differ"
    if expected.shape != ():
        text += f" (shape {_shape(expected.shape)})"
    text += (
        f"; {'the first and the worst' if worst == first else 'the first'}, at "
        f"{_index(first, expected.shape)}: expected {a}, got {b}"
    )
    if worst != first:
        a, b = show_pair(expected.data[worst], got.data[worst])
        text += f"; the worst, at {_index(worst, expected.shape)}: expected {a}, got {b}"
    error = _error(expected.data[worst], got.data[worst])
    text += f"; largest error {fmt(error, 3) if error != math.inf else 'inf or nan'}"
    if len(expected.data) > 1:
        where, got_row, want_row = _row(got, expected, first)
        text += f"; {where} got [{got_row}] where [{want_row}] was expected"
    return text


def _row(got: Array, expected: Array, flat: int) -> tuple[str, str, str]:
    """The stretch of the last axis around element
    `flat`: where it is, and both sides' values there."""
    size = expected.shape[-1]
    start = flat - flat % size
    low = max(start, min(flat - ROW // 2, start + size - ROW))
    high = min(start + size, low + ROW)
    index = _index(flat, expected.shape)
    where = (
        f"in row {index[: index.rfind(',') + 1]} :]" if len(expected.shape) > 1 else "around it,"
    )
    cut = ("..., " if low > start else "", ", ..." if high < start + size else "")

    def values(array: Array) -> str:
        return cut[0] + ", ".join(fmt(v, 4) for v in array.data[low:high]) + cut[1]

    return where, values(got), values(expected)


def excerpt(array: Array, digits: int = 4) -> str:
    """The array's first few elements along each axis,
    nested as numpy prints them ("..." for the rest)."""

    def part(axis: int, offset: int) -> str:
        size = array.shape[axis]
        stride = math.prod(array.shape[axis + 1 :])
        shown = EXCERPT_LAST if axis == len(array.shape) - 1 else EXCERPT_OUTER
        if axis == len(array.shape) - 1:
            items = [fmt(array.data[offset + i], digits) for i in range(min(size, shown))]
        else:
            items = [part(axis + 1, offset + i * stride) for i in range(min(size, shown))]
        return "[" + ", ".join(items + (["..."] if size > shown else [])) + "]"

    return fmt(array.data[0], digits) if array.shape == () else part(0, 0)


def _error(want: float, have: float) -> float:
    diff = abs(have - want)
    return math.inf if math.isnan(diff) else diff


def _index(flat: int, shape: tuple[int, ...]) -> str:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return "[" + ", ".join(map(str, reversed(index))) + "]"


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# ------------------------------------------------------------------------------------------------
# Showing values to people


def fmt(x: float, digits: int = 6) -> str:
    if math.isnan(x) or math.isinf(x):
        return str(x)
    text = f"{x:.{digits}g}"
    return text if "e" in text or "." in text or "inf" in text else text + ".0"


def fmt_points(x: float) -> str:
    """Points as people write them: 10, 2.5, 0.33."""
    return f"{round(x, 2):g}"


def show_pair(want: float, have: float) -> tuple[str, str]:
    """Both numbers with just enough digits that different values look different."""
    for digits in range(6, 18):
        a, b = fmt(want, digits), fmt(have, digits)
        if a != b or want == have:
            return a, b
    return repr(want), repr(have)


def show(value: Value, preview: int = PREVIEW) -> str:
    match value:
        case Number(v):
            return fmt(v)
        case Flag(v):
            return str(v)
        case Text(v):
            return repr(v)
        case Nothing():
            return "None"
        case Seq(items, kind):
            inner = ", ".join(show(item) for item in items[:preview]) + (
                ", ..." if len(items) > preview else ""
            )
            return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(items) == 1 else ''})"
        case Array(shape, data):
            if shape == ():
                return fmt(data[0])
            if len(shape) == 1 or 0 in shape:
                inner = ", ".join(fmt(v) for v in data[:PREVIEW]) + (
                    ", ..." if len(data) > PREVIEW else ""
                )
                return f"tensor of shape {_shape(shape)}: [{inner}]"
            return f"tensor of shape {_shape(shape)}: {excerpt(value)}"
        case Opaque(type_name, text):
            return f"<{type_name}: {text}>" if text else f"<{type_name}>"
        case ErrorInfo():
            return value.describe()
    raise TypeError(f"not a Value: {value!r}")


def describe(value: Value) -> str:
    """`show`, plus what kind of thing it is where that is the surprise."""
    match value:
        case Opaque(type_name, text):
            return f"a {type_name} object ({text})" if text else f"a {type_name} object"
        case Flag(v):
            return f"{v} (a bool)"
        case Text(v):
            return f"the text {v!r}"
        case Seq(items, kind):
            return f"a {kind} of {len(items)}: {show(value)}"
        case ErrorInfo():
            return f"an error: {value.describe()}"
    return show(value)
