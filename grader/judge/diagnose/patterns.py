"""Patterns in a failed check's numbers, and errors that
state their cause: what names a mistake when no mutant does.

The numbers are compared with the expected ones for the shapes a wrong gradient commonly takes (all
zero, half, double, negated, exchanged, scaled by an input or by N, the wrong shape, non-zero where
the gradient is 0), each named only where every wrong value of the check takes it. An error names
its mistake when the submission's syntax tree confirms it (grader.judge.diagnose.named_errors), or
when it is a torch error whose cause is known (grader.judge.diagnose.hints).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from grader.core.compare import compare, fmt
from grader.core.engines import Engine
from grader.core.numeric import Tolerance
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.judge.diagnose.evidence import Evidence
from grader.judge.diagnose.hints import known_error
from grader.judge.diagnose.matching import MISSING, has_numbers
from grader.judge.diagnose.named_errors import RIGHT_ELSEWHERE, named_by_error
from grader.judge.names import Definitions
from grader.judge.oracle import Expected
from grader.judge.report import Diagnosis, ExerciseResult
from grader.judge.uses import probe_uses
from grader.run.inputs import Inputs, TensorInput
from grader.run.observed import ProbeRun

_RATIO = 1e-6  # how close a ratio must come to 1/2, 2, -1, k... to count as that
NOTHING = Diagnosis(
    kind="unknown", mistake="", hint="", evidence="no known mistake or pattern matches"
)
#: the patterns that are ratios of the right answer, which chance can give on one check
RATIOS = {"all-zero", "negated", "half", "multiple", "scaled-by-input", "scaled-by-n"}


def name_patterns(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The result, with patterns named on the failed checks no known mistake explains.

    A ratio (half, double, negated...) can hold on one check by chance, so it
    is named only when every numerically wrong check of the exercise shows the
    same one, and there are at least two. A wrong shape, a known error and two
    exchanged values are facts of their own check, named where they occur.
    """
    found: dict[int, Diagnosis] = {}
    ratios: dict[int, Diagnosis | None] = {}
    for index in sorted(evidence.failing):
        if result.checks[index].diagnosis is not None:
            continue
        diagnosis = _pattern_of(evidence, index)
        if diagnosis.mistake in RATIOS:
            ratios[index] = diagnosis
        elif diagnosis.kind != "unknown":
            found[index] = diagnosis
        elif has_numbers(evidence.ran[index][1], evidence.probe_index(index)):
            # numbers, but no ratio: no ratio pattern can hold for the whole exercise
            ratios[index] = None
    kinds = {d.mistake if d is not None else None for d in ratios.values()}
    # one check alone is chance: a function that makes its own tensor
    # can be off by a ratio on the one check where that matters
    if len(kinds) == 1 and None not in kinds and len(ratios) > 1:
        for index, ratio in ratios.items():
            if ratio is not None:
                found[index] = ratio
    if any(evidence.has_values(i) for i in evidence.failing):
        # wrong values elsewhere: an overflow is not the mistake, the formula is
        found = {i: d for i, d in found.items() if d.mistake not in RIGHT_ELSEWHERE}
    checks = list(result.checks)
    for index, diagnosis in found.items():
        checks[index] = dataclasses.replace(checks[index], diagnosis=diagnosis)
    return dataclasses.replace(result, checks=tuple(checks))


def _pattern_of(evidence: Evidence, index: int) -> Diagnosis:
    """The pattern check `index` shows by itself."""
    exercise = evidence.exercise
    probe_index = evidence.probe_index(index)
    probe = exercise.probes[probe_index]
    uses = probe_uses(exercise, probe) if exercise.kind.operations else None
    return pattern(
        evidence.got(index),
        evidence.expected[probe_index],
        evidence.inputs[probe_index],
        evidence.tolerance(index),
        exercise.engine,
        evidence.facts(),
        uses,
    )


def pattern(
    got: ProbeRun | None,
    expected: Expected,
    inputs: Inputs,
    tol: Tolerance,
    engine: Engine,
    defined: Definitions | None,
    uses: frozenset[str] | None = None,
) -> Diagnosis:
    """The pattern a check's run shows: an error that states its cause, else a shape of its
    wrong numbers; NOTHING where none holds."""
    stated = _stated(got, engine, defined, uses)
    if stated is not None:
        return stated
    if got is None or got.observations is None or isinstance(expected.observations, ErrorInfo):
        return NOTHING
    want_all, got_all = expected.observations, got.observations
    wrong = [
        label for label, want in want_all.items() if compare(want, got_all.get(label, MISSING), tol)
    ]
    if not wrong:
        return NOTHING
    exchanged = _exchanged(wrong, want_all, got_all, tol)
    if exchanged is not None:
        return exchanged
    if all(
        _wrong_only_where_zero(want_all[label], got_all.get(label, MISSING), tol) for label in wrong
    ):
        return named_pattern(
            "nonzero-where-zero",
            f"{', '.join(wrong)}: not 0 where the gradient is 0, right elsewhere",
        )
    found = [
        (label, _ratio_pattern(want_all[label], got_all[label], inputs))
        for label in wrong
        if label in got_all
    ]
    kinds = {p.mistake for _, p in found if p is not None}
    if len(kinds) == 1 and all(p is not None for _, p in found):  # every wrong value, the same way
        _, first = found[0]
        assert first is not None
        labels = ", ".join(label for label, _ in found)
        return dataclasses.replace(first, evidence=f"{labels}: {first.evidence}")
    return NOTHING


def _stated(
    got: ProbeRun | None, engine: Engine, defined: Definitions | None, uses: frozenset[str] | None
) -> Diagnosis | None:
    """What an error the run raised (or observed) names by itself: once the syntax tree
    confirms it (a class with no __sub__), or a torch error whose cause is known."""
    if got is None:
        return None
    errors = [got.error] if got.error is not None else []
    if got.error is None:
        errors = [v for v in (got.observations or {}).values() if isinstance(v, ErrorInfo)]
    for error in errors:
        named = None if defined is None else named_by_error(error, defined, uses)
        if named is not None:
            return named
        known = known_error(error, engine)
        if known is not None:
            return Diagnosis(
                kind="pattern",
                mistake=known[0],
                hint=known[1][0].upper() + known[1][1:],
                evidence=f"the code raised {error.type_name}: "
                f"{error.message.splitlines()[0][:160]}",
            )
    return None


def _numbers(value: Value) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
    if isinstance(value, Number):
        return (), (value.value,)
    if isinstance(value, Array):
        return value.shape, value.data
    return None


PATTERNS = {
    "wrong-shape": "The result's shape is not the expected one: a gradient "
    "has the shape of its input, so sum over the dimensions "
    "that broadcasting added (or return one value per element).",
    "all-zero": "Zero where something was expected: nothing reached it - an output "
    "not seeded with 1.0 before the walk, nodes visited inputs first, "
    "an operation that passes nothing on, or a loop that never ran.",
    "negated": "Right size, wrong sign: check the sign of a local derivative (d(x "
    "- y)/dy is -1) or of the update (gradient descent subtracts).",
    "half": "Exactly half: a contribution is lost - a node used twice (w * "
    "w, x + x) must add both with +=, not overwrite with =, and a "
    "leaf's grad keeps adding across backward() calls unless cleared.",
    "multiple": "A whole multiple too large: something is counted more than "
    "once - a node visited twice in backward() (keep a set of "
    "visited nodes), or gradients that pile up across calls.",
    "scaled-by-input": "Off by a factor that is one of the inputs: the gradient arriving from "
    "above (out.grad) is missing, or an input's value is used where another's belongs.",
    "scaled-by-n": "Off by a whole factor: something scales the result - a mean's "
    "1/N missing or applied twice, a sum where a mean belongs, or a "
    "learning rate or number of steps other than the one asked for.",
    "exchanged": "Two gradients are exchanged: each operand's local "
    "derivative is the other operand's value (d(x*y)/dx = y).",
    "nonzero-where-zero": "Something flows where nothing may: a gradient that must be 0 (through a "
    "closed ReLU gate, or to an input the output does not depend on) is not. Check the "
    "condition that gates the gradient and the slope it uses when the gate is closed.",
    "breaks-a-rule": "The values are right, but the file breaks the exercise's "
    "rule (see above): do the work the way the exercise asks.",
}


def named_pattern(mistake: str, evidence: str) -> Diagnosis:
    return Diagnosis(kind="pattern", mistake=mistake, hint=PATTERNS[mistake], evidence=evidence)


def _wrong_only_where_zero(want: Value, got: Value, tol: Tolerance) -> bool:
    """Every wrong element should have been exactly 0: something flows where nothing may."""
    expected, actual = _numbers(want), _numbers(got)
    if expected is None or actual is None or expected[0] != actual[0]:
        return False
    wrong = [(w, g) for w, g in zip(expected[1], actual[1], strict=True) if not tol.close(g, w)]
    return bool(wrong) and all(w == 0 and math.isfinite(g) for w, g in wrong)


def _ratio_pattern(want: Value, got: Value, inputs: Inputs) -> Diagnosis | None:
    expected, actual = _numbers(want), _numbers(got)
    if expected is None or actual is None:
        return None
    if expected[0] != actual[0]:
        return named_pattern("wrong-shape", f"shape {actual[0]} where {expected[0]} was expected")
    pairs = [
        (w, g)
        for w, g in zip(expected[1], actual[1], strict=True)
        if math.isfinite(w) and math.isfinite(g)
    ]
    if not pairs or all(abs(w) < 1e-12 for w, _ in pairs):
        return None
    if all(abs(g) < 1e-12 for _, g in pairs):
        return named_pattern("all-zero", "0 where something else was expected")
    ratios = {round(g / w, 9) for w, g in pairs if abs(w) > 1e-12}
    if len(ratios) != 1 or any(abs(g) > 1e-12 for w, g in pairs if abs(w) <= 1e-12):
        return None
    (ratio,) = ratios
    if not math.isfinite(ratio):  # a huge value over a small one: no factor a mistake makes
        return None
    if _near(ratio, -1):
        return named_pattern("negated", "the expected value with its sign flipped")
    if _near(ratio, 0.5):
        return named_pattern("half", "exactly half the expected value")
    if ratio > 1 and _near(ratio, round(ratio)) and round(ratio) in (2, 4, 8):
        return named_pattern("multiple", f"exactly {round(ratio)} times the expected value")
    for name, value in inputs.items():
        if isinstance(value, TensorInput) or abs(abs(value) - 1) < 1e-9 or value == 0:
            continue
        if _near(ratio, 1 / value) or _near(ratio, value):
            factor = "divided by" if _near(ratio, 1 / value) else "multiplied by"
            return named_pattern(
                "scaled-by-input", f"the expected value {factor} {name} = {fmt(value)}"
            )
    for k in range(3, 101):
        if _near(ratio, k) or _near(ratio, 1 / k):
            return named_pattern(
                "scaled-by-n", f"the expected value {'times' if ratio > 1 else 'divided by'} {k}"
            )
    return None


def _exchanged(
    wrong: list[str], want: Mapping[str, Value], got: Mapping[str, Value], tol: Tolerance
) -> Diagnosis | None:
    for i, a in enumerate(wrong):
        for b in wrong[i + 1 :]:
            swapped = (
                compare(want[a], got.get(b, MISSING), tol) is None
                and compare(want[b], got.get(a, MISSING), tol) is None
            )
            if swapped:
                return named_pattern(
                    "exchanged", f"{a} has the value {b} should have, and the other way round"
                )
    return None


def _near(x: float, y: float) -> bool:
    return abs(x - y) <= _RATIO * max(1.0, abs(y))
