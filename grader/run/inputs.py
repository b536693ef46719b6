"""Seeded probe inputs that follow the probe rules: generic values, no coincidences, away from
kinks.

The rules, each so that a mistake shows in the values: no 0 and no +-1 (where a missing factor
or term would still give the right number), no two inputs equal or opposite (so swapped or negated
gradients show), magnitudes of order one, three decimals so a student can retype them. The same
seed, exercise and probe always give the same values.
"""

from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the sandboxed child imports this module: it needs none of the spec loader
    from grader.core.exercise import Exercise, InputSpec, Probe

LOW, HIGH = 0.3, 3.0  # magnitudes of random scalars: far from 0, derivatives of order one
#: never 0 or 1, which hide the classic pow mistakes; ints, so that a student's range(n) works
EXPONENTS = (2, 3, 4, -1, -2)
_ATTEMPTS = 1000
#: elements of a tensor kept 0.1 apart in magnitude (the range holds about 24 such, and drawing near
#: that many takes thousands of tries); the rest only differ in magnitude from all before them, so
#: no maximum is tied
_DISTINCT_UP_TO = 12


@dataclass(frozen=True, slots=True)
class TensorInput:
    """A tensor a probe receives, as plain data; each engine makes its own torch tensor from it."""

    shape: tuple[int, ...]
    data: tuple[float, ...]
    dtype: Literal["float64", "float32", "int64"] = "float64"
    requires_grad: bool = False


InputValue = float | int | TensorInput
Inputs = dict[str, InputValue]


def draw_inputs(exercise: Exercise, seed: int) -> tuple[Inputs, ...]:
    """Inputs for every probe of `exercise`, in probe order."""
    return tuple(draw_probe_inputs(exercise.id, probe, seed) for probe in exercise.probes)


def draw_probe_inputs(exercise_id: str, probe: Probe, seed: int) -> Inputs:
    # A string seed is hashed with SHA-512 by `random`: stable across runs, machines and versions.
    # Only rng.random() is used, whose stream Python keeps stable.
    # The exercise's shared inputs come first, from a stream of their own: the same in every probe.
    shared = _draw_all(
        [spec for spec in probe.inputs if spec.shared], random.Random(f"{seed}/{exercise_id}/")
    )
    return {
        **shared,
        **_draw_all(
            [spec for spec in probe.inputs if not spec.shared],
            random.Random(f"{seed}/{exercise_id}/{probe.name}"),
        ),
    }


def _draw_all(specs: list[InputSpec], rng: random.Random) -> Inputs:
    drawn: Inputs = {}
    randoms: list[float] = []  # random scalars so far: a new one must differ from each
    for spec in specs:
        if spec.kind == "tensor":
            drawn[spec.name] = _tensor(spec, rng)
            continue
        value = _draw(spec, rng, randoms)
        if spec.kind in ("scalar", "positive", "negative"):
            randoms.append(value)
        drawn[spec.name] = value
    return drawn


def probe_seed(seed: int, exercise_id: str, probe_name: str) -> int:
    """A seed for torch's generator in one probe, so random initialisations repeat on every
    engine."""
    return random.Random(f"torch/{seed}/{exercise_id}/{probe_name}").getrandbits(63)


def _draw(spec: InputSpec, rng: random.Random, others: list[float]) -> float | int:
    match spec.kind:
        case "literal":
            return spec.values[0]
        case "choice":
            return spec.values[_index(rng, len(spec.values))]
        case "exponent":
            return EXPONENTS[_index(rng, len(EXPONENTS))]
        case "uniform":
            assert spec.bounds is not None
            low, high = spec.bounds
            return round(low + (high - low) * rng.random(), 3)
    sign = {"positive": 1.0, "negative": -1.0}.get(spec.kind)
    return _generic_value(rng, others, sign)


def _generic_value(rng: random.Random, others: list[float], sign: float | None) -> float:
    value = 0.0
    # the nearest magnitudes decide: found by bisection
    taken = sorted(abs(other) for other in others)
    for _ in range(_ATTEMPTS):
        magnitude = round(LOW + (HIGH - LOW) * rng.random(), 3)
        value = magnitude * (sign if sign is not None else (1.0 if rng.random() < 0.5 else -1.0))
        if _generic(value, taken):
            break
    return value


def _tensor(spec: InputSpec, rng: random.Random) -> TensorInput:
    size = math.prod(spec.shape)
    if spec.values:
        data = tuple(float(v) for v in spec.values)
    elif spec.dtype == "int64" and spec.bounds is not None:  # indices or labels: low <= n < high
        first, stop = int(spec.bounds[0]), int(spec.bounds[1])
        data = tuple(float(first + _index(rng, stop - first)) for _ in range(size))
    elif spec.bounds is not None:
        low, high = spec.bounds
        data = tuple(round(low + (high - low) * rng.random(), 3) for _ in range(size))
    else:
        values: list[float] = []
        magnitudes: set[float] = set()
        sign = 1.0 if spec.positive else None
        for _ in range(size):
            value = _generic_value(rng, values if len(values) < _DISTINCT_UP_TO else [], sign)
            while abs(value) in magnitudes:
                value = _generic_value(rng, [], sign)
            values.append(value)
            magnitudes.add(abs(value))
        data = tuple(values)
    return TensorInput(spec.shape, data, spec.dtype, spec.requires_grad)


def _index(rng: random.Random, n: int) -> int:
    return min(int(rng.random() * n), n - 1)


def _generic(value: float, taken: list[float]) -> bool:
    """Away from +-1, and at least 0.1 in magnitude from every one of `taken` (sorted
    magnitudes)."""
    if abs(abs(value) - 1.0) < 0.15:
        return False
    at = bisect.bisect_left(taken, abs(value))
    return all(abs(abs(value) - taken[i]) >= 0.1 for i in (at - 1, at) if 0 <= i < len(taken))


def input_to_data(value: InputValue) -> object:
    """An input as JSON for the child's request."""
    if isinstance(value, TensorInput):
        return {
            "tensor": {
                "shape": list(value.shape),
                "data": list(value.data),
                "dtype": value.dtype,
                "requires_grad": value.requires_grad,
            }
        }
    return value


def input_from_data(data: object) -> InputValue:
    """The child's side of `input_to_data` (the request comes from the trusted side)."""
    if isinstance(data, dict):
        t = data["tensor"]
        return TensorInput(tuple(t["shape"]), tuple(t["data"]), t["dtype"], t["requires_grad"])
    assert isinstance(data, (int, float))
    return data


def show_input(value: InputValue) -> str:
    """An input as a report shows it."""
    if isinstance(value, TensorInput):
        preview = (
            "["
            + ", ".join(f"{v:g}" for v in value.data[:6])
            + (", ..." if len(value.data) > 6 else "")
            + "]"
        )
        if len(value.shape) > 1 and 0 not in value.shape:  # nested, as numpy prints it
            # the trusted side's: the child never shows inputs
            from grader.core.compare import excerpt
            from grader.core.values import Array

            preview = excerpt(Array(value.shape, value.data))
        grad = ", requires_grad" if value.requires_grad else ""
        dtype = f", {value.dtype}" if value.dtype != "float64" else ""
        dims = ", ".join(map(str, value.shape)) + ("," if len(value.shape) == 1 else "")
        return f"tensor of shape ({dims}){dtype}{grad}: {preview}"
    return str(value) if isinstance(value, int) else f"{value:g}"
