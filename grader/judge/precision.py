"""What float32 arithmetic of a correct answer can give at a check's inputs: the slack a torch exercise allows.

A correct answer in float32 differs from the float64 expected values by what float32 rounding makes of that
check's computation: little for a well-conditioned one, and as much as 4e-4 relative where torch's float32
sigmoid forms 1 - s from an s near 1. A constant tolerance is too tight there and needlessly loose elsewhere,
so the slack is calibrated at each check's own inputs: the exercise's solution runs once more with its float64
made float32 (`in_float32`), and each observation's slack is MARGIN times how far that run lands from the
float64 one, element by element (`slack`).

An exercise that accepts float32 (`precision: float32` in its spec) widens its checks by that slack. Every
exercise weighs a name's evidence against it: a known mistake is named only where the student's values are
farther from the right ones than float32 explains (grader.judge.diagnose.likeness), and a check that fails by
no more than it says so instead (grader.judge.check).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator, Mapping

from grader.core.numeric import Tolerance
from grader.core.values import Array, Number, Seq, Value

#: how far past the float32 solution's own error a correct float32 answer may land: another order of operations
#: or another formula rounds otherwise (the forms of each exercise's variants/ use a quarter of it or less)
MARGIN = 4.0
#: the least a float32 answer may be off by, relative: a few roundings of float32's unit (2**-24 = 6e-8)
FLOOR = 8 * 2.0**-24
#: elements this much smaller than the largest of an observation are held to an absolute slack, not a relative one
SMALL = 1e-3
#: a relative slack above this says that float32 is ill-conditioned at the check's inputs: `grade validate` asks
#: for other inputs
ILL_CONDITIONED = 1e-2
#: what names float64 in torch, and what it becomes in float32
_FLOAT64 = frozenset({"float64", "double"})


def in_float32(source: str) -> str | None:
    """The source with torch's float64 made float32 (`torch.float64`, `torch.double`, `.double()`); None where it
    names no float64, and so already computes in the precision its inputs have."""
    tree = ast.parse(source)
    changed = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _FLOAT64 and isinstance(node.value, ast.Name) \
                and node.value.id == "torch":
            node.attr, changed = "float32", True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "double" \
                and not node.args and not node.keywords:
            node.func.attr, changed = "float", True
    return ast.unparse(tree) + "\n" if changed else None


def slack(want: Mapping[str, Value], float32: Mapping[str, Value]) -> dict[str, Tolerance]:
    """Each observation's slack: what covers MARGIN times the float32 run's distance from the float64 one at every
    element, and FLOOR relative. An observation whose float32 value has another shape, or is not finite where the
    float64 one is, gets none: float32 cannot give it."""
    found = {}
    for label, value in want.items():
        other = float32.get(label)
        pairs = None if other is None else _pairs(value, other)
        if pairs:
            found[label] = _covering(pairs)
    return found


def _covering(pairs: list[tuple[float, float]]) -> Tolerance:
    """The tolerance that lets every (expected, distance) pair through with MARGIN: relative for elements near the
    largest, absolute for the rest (an element near 0 would otherwise ask for an enormous rtol)."""
    largest = max(abs(e) for e, _ in pairs)
    needed = [(abs(e), MARGIN * d + FLOOR * abs(e)) for e, d in pairs]
    rtol = max((n / e for e, n in needed if e > 0 and e >= SMALL * largest), default=0.0)
    atol = max(max(0.0, n - rtol * e) for e, n in needed)
    return Tolerance(rtol=rtol, atol=atol)


def _pairs(want: Value, got: Value) -> list[tuple[float, float]] | None:
    """(expected, |float32 - expected|) for each number of a value, or None where the two differ in kind or shape,
    or the float32 one is not finite where the float64 one is."""
    pairs = []
    for expected, float32 in _numbers(want, got):
        if expected is None or float32 is None:
            return None
        if not math.isfinite(expected):
            continue
        if not math.isfinite(float32):
            return None
        pairs.append((expected, abs(float32 - expected)))
    return pairs


def _numbers(want: Value, got: Value) -> Iterator[tuple[float | None, float | None]]:
    """The numbers of two values side by side; (None, None) where their kinds or shapes part."""
    match want:
        case Number(value):
            yield value, got.value if isinstance(got, Number) else _scalar(got)
        case Array(shape, data) if isinstance(got, Array) and got.shape == shape:
            yield from zip(data, got.data, strict=True)
        case Array(shape=()):
            yield want.data[0], got.value if isinstance(got, Number) else None
        case Seq(items) if isinstance(got, Seq) and len(got.items) == len(items):
            for mine, theirs in zip(items, got.items, strict=True):
                yield from _numbers(mine, theirs)
        case Number() | Array() | Seq():
            yield None, None


def _scalar(value: Value) -> float | None:
    return value.data[0] if isinstance(value, Array) and value.shape == () else None


def explained(tolerance: Tolerance, by: Tolerance | None) -> Tolerance:
    """`tolerance`, widened by a float32 slack where there is one."""
    return tolerance if by is None else tolerance.widened(by)


def relative_difference(want: Value, got: Value) -> float:
    """The largest difference between two values' numbers, relative to the expected one (absolute where that is
    0); 0 where they have no numbers side by side."""
    found = 0.0
    for expected, value in _numbers(want, got):
        if expected is not None and value is not None and math.isfinite(expected) and math.isfinite(value):
            found = max(found, abs(value - expected) / abs(expected) if expected else abs(value))
    return found
