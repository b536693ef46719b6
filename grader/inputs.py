"""Seeded probe inputs that follow the probe rules: generic values, no coincidences, away from kinks.

Rules (research/autograd-mistakes.md section 7): no 0 and no +-1, no two inputs equal or opposite
(so swapped or negated gradients show), magnitudes of order one, three decimals so a student can
retype them. The same seed, exercise and probe always give the same values.
"""

from __future__ import annotations

import random

from grader.spec import Exercise, InputSpec, Probe

Inputs = dict[str, float | int]

LOW, HIGH = 0.3, 3.0  # magnitudes of random scalars: far from 0, derivatives of order one
#: never 0 or 1, which hide the classic pow mistakes; ints, so that a student's range(n) works
EXPONENTS = (2, 3, 4, -1, -2)
_ATTEMPTS = 1000


def draw_inputs(exercise: Exercise, seed: int) -> tuple[Inputs, ...]:
    """Inputs for every probe of `exercise`, in probe order."""
    return tuple(draw_probe_inputs(exercise.id, probe, seed) for probe in exercise.probes)


def draw_probe_inputs(exercise_id: str, probe: Probe, seed: int) -> Inputs:
    # A string seed is hashed with SHA-512 by `random`: stable across runs, machines and versions.
    # Only rng.random() is used, whose stream Python keeps stable.
    rng = random.Random(f"{seed}/{exercise_id}/{probe.name}")
    drawn: Inputs = {}
    for spec in probe.inputs:
        drawn[spec.name] = _draw(spec, rng, [v for n, v in drawn.items() if _is_random(probe, n)])
    return drawn


def _is_random(probe: Probe, name: str) -> bool:
    return any(spec.name == name and spec.kind != "literal" for spec in probe.inputs)


def _draw(spec: InputSpec, rng: random.Random, others: list[float | int]) -> float | int:
    match spec.kind:
        case "literal":
            return spec.values[0]
        case "choice":
            return spec.values[min(int(rng.random() * len(spec.values)), len(spec.values) - 1)]
        case "exponent":
            return EXPONENTS[min(int(rng.random() * len(EXPONENTS)), len(EXPONENTS) - 1)]
        case "uniform":
            low, high = spec.values
            return round(low + (high - low) * rng.random(), 3)
    sign = {"positive": 1.0, "negative": -1.0}.get(spec.kind)
    value = 0.0
    for _ in range(_ATTEMPTS):
        magnitude = round(LOW + (HIGH - LOW) * rng.random(), 3)
        value = magnitude * (sign if sign is not None else (1.0 if rng.random() < 0.5 else -1.0))
        if _generic(value, others):
            break
    return value


def _generic(value: float, others: list[float | int]) -> bool:
    if abs(abs(value) - 1.0) < 0.15:
        return False
    return all(abs(abs(value) - abs(other)) >= 0.1 for other in others)
