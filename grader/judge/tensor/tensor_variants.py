"""The tensor reference with one rule changed, to
name what a tensor exercise's mutants may not cover.

Like grader.judge.diagnose.slips for the scalar engine: the exercise's probes
run here, in the trusted process (these are our engines), on the reference with
known mistakes in its rules. Each variant belongs to a family of alternatives
for the same rules and says what it changes, one fact per place (`changes`):

- matmul's backward with its transposes on the wrong side, missing, the result transposed, or made
  with numpy's `.T` (which reverses every axis of a batch), for one operand or both;
- those an exercise declares in its own folder (grader.judge.diagnose.exercise_code): batch norm's
  backward without one of its paths, or with eps misplaced (layer-backward); a softmax loss shifted
  by nothing or by the whole batch's maximum, or taking the log of probabilities that underflow to
  0 (softmax-cross-entropy).

A check names a variant only where its values are numbers that every fitting variant gives on the
student's inputs, all of one family, and the variant whose changes are exactly what those share fits
too: a check that shows only the log's underflow names the log, not the shift it cannot see.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.core.compare import compare
from grader.core.exercise import Exercise
from grader.core.numeric import Tolerance
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.judge.diagnose.exercise_code import exercise_code
from grader.judge.oracle import Expected
from grader.judge.report import Diagnosis
from grader.run.child.execute import compile_probe, namespace, run_probe
from grader.run.inputs import Inputs
from grader.run.observed import ProbeRun
from reference.tensor import Array as Arr
from reference.tensor import Tensor, sum_to_shape
from reference.tensor_tasks import reference_names


@dataclass(frozen=True, slots=True)
class Variant:
    mistake: str
    hint: str
    #: what a probe sees on this variant, by the names the exercise defines
    names: dict[str, object]
    #: the alternatives for the same rules; a check names a variant only where one family fits
    family: str = ""
    #: what it changes, one fact per place
    changes: frozenset[str] = frozenset()


VariantRuns = tuple[tuple[Variant, tuple[ProbeRun, ...]], ...]
_CACHE: dict[tuple[str, str, int], VariantRuns] = {}
_CACHED = 16

#: matmul's gradients, out = a @ b: (what a student wrote, as a formula, and what it computes)
_GRAD_A: dict[str, tuple[str, Callable[[Arr, Arr, Arr], Arr]]] = {
    "wrong side": ("b.T @ out.grad", lambda a, b, g: b.swapaxes(-1, -2) @ g),
    "no transpose": ("out.grad @ b", lambda a, b, g: g @ b),
    "transposed": ("b @ out.grad.T", lambda a, b, g: b @ g.swapaxes(-1, -2)),
    "numpy .T": ("out.grad @ b.T with numpy's .T", lambda a, b, g: g @ b.T),
}
_GRAD_B: dict[str, tuple[str, Callable[[Arr, Arr, Arr], Arr]]] = {
    "wrong side": ("out.grad @ a.T", lambda a, b, g: g @ a.swapaxes(-1, -2)),
    "no transpose": ("a @ out.grad", lambda a, b, g: a @ g),
    "transposed": ("out.grad.T @ a", lambda a, b, g: g.swapaxes(-1, -2) @ a),
    "numpy .T": ("a.T @ out.grad with numpy's .T", lambda a, b, g: a.T @ g),
}
_RIGHT_A: Callable[[Arr, Arr, Arr], Arr] = lambda a, b, g: g @ b.swapaxes(-1, -2)  # noqa: E731
_RIGHT_B: Callable[[Arr, Arr, Arr], Arr] = lambda a, b, g: a.swapaxes(-1, -2) @ g  # noqa: E731
_NUMPY_T = (
    "numpy's .T reverses every axis, so on a batch (more than 2 axes) it is no matrix "
    "transpose: swap the last two axes, a.swapaxes(-1, -2), for each product's transpose."
)


def variant_runs(exercise: Exercise, inputs: tuple[Inputs, ...]) -> VariantRuns:
    """Every probe of `exercise` on every variant that
    applies to it; the same inputs give the same runs."""
    key = (
        str(exercise.spec_path),
        exercise.id,
        hash(tuple(tuple(sorted(i.items())) for i in inputs)),
    )
    if key not in _CACHE:
        if len(_CACHE) >= _CACHED:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = tuple((v, _run(exercise, inputs, v)) for v in _variants(exercise))
    return _CACHE[key]


def matching(
    runs: VariantRuns, probe_index: int, got: ProbeRun, want: Expected, tol: Tolerance
) -> Diagnosis | None:
    """The variant whose values this check's are, where the fitting variants isolate one."""
    if (
        got.observations is None
        or isinstance(want.observations, ErrorInfo)
        or not any(isinstance(v, (Number, Array)) for v in got.observations.values())
    ):
        return None
    variant = isolated([v for v, results in runs if _same(got, results[probe_index], want, tol)])
    if variant is None:
        return None
    return Diagnosis(
        kind="pattern",
        mistake=variant.mistake,
        hint=variant.hint,
        evidence=f"every value matches the reference engine with this mistake ({variant.mistake})",
    )


def isolated(fits: list[Variant]) -> Variant | None:
    """Among the variants that fit a check, the one that
    changes exactly what they all change; else None."""
    if not fits or len({v.family for v in fits}) != 1:
        return None
    common = frozenset.intersection(*(v.changes for v in fits))
    exact = {(v.mistake, v.hint): v for v in fits if v.changes == common}
    return next(iter(exact.values())) if common and len(exact) == 1 else None


def raising(runs: VariantRuns, probe_index: int, error: ErrorInfo) -> list[Variant]:
    """The variants whose run of this probe raised
    this very error: its type and its whole message."""
    return [
        v
        for v, results in runs
        if (theirs := results[probe_index].error) is not None
        and theirs.type_name == error.type_name
        and theirs.message == error.message
    ]


def fails(
    results: tuple[ProbeRun, ...], expected: tuple[Expected, ...], tols: tuple[Tolerance, ...]
) -> set[int]:
    """The probes a variant's results do not pass."""
    wrong = set()
    for index, (got, want) in enumerate(zip(results, expected, strict=True)):
        if isinstance(want.observations, ErrorInfo):
            continue
        if got.observations is None or any(
            compare(value, got.observations.get(label, _MISSING), tols[index])
            for label, value in want.observations.items()
        ):
            wrong.add(index)
    return wrong


def _same(got: ProbeRun, theirs: ProbeRun, want: Expected, tol: Tolerance) -> bool:
    if (
        theirs.observations is None
        or got.observations is None
        or isinstance(want.observations, ErrorInfo)
    ):
        return False
    wrong = any(
        compare(expected, theirs.observations.get(label, _MISSING), tol) is not None
        for label, expected in want.observations.items()
    )
    return wrong and all(
        compare(theirs.observations[label], value, tol) is None
        if label in theirs.observations
        else False
        for label, value in got.observations.items()
    )


_MISSING: Value = ErrorInfo("missing", "nothing observed")


def _run(exercise: Exercise, inputs: tuple[Inputs, ...], variant: Variant) -> tuple[ProbeRun, ...]:
    results = []
    with (
        warnings.catch_warnings(),
        np.errstate(all="ignore"),
    ):  # an overflowing variant overflows on purpose
        warnings.simplefilter("ignore")
        for probe, probe_inputs in zip(exercise.probes, inputs, strict=True):
            code = compile_probe(probe.name, probe.code, dict(probe.observe))
            outcome = run_probe(code, namespace("numpy", variant.names, probe_inputs, "cpu"))
            results.append(
                ProbeRun(None, outcome)
                if isinstance(outcome, ErrorInfo)
                else ProbeRun(outcome, None)
            )
    return tuple(results)


def _variants(exercise: Exercise) -> list[Variant]:
    """The variants that apply to the exercise: matmul's, wherever a Tensor class multiplies,
    and those its own folder declares (grader.judge.diagnose.exercise_code)."""
    found: list[Variant] = []
    defined = {name for name, _ in exercise.defines}
    if "Tensor" in defined and any("@" in p.code or "matmul" in p.code for p in exercise.probes):
        found += _matmul_variants(exercise)
    declared = exercise_code(exercise).variants
    if declared is not None:
        for variant in declared(reference_names(Tensor, exercise.defines)):
            if not isinstance(variant, Variant):
                raise TypeError(f"{exercise.diagnosis}: variants() gives a {type(variant)}")
            found.append(variant)
    return found


def _matmul_variants(exercise: Exercise) -> list[Variant]:
    variants = []
    right = ("right", "", _RIGHT_A), ("right", "", _RIGHT_B)
    for form_a, said_a, rule_a in (right[0], *((f, *_GRAD_A[f]) for f in _GRAD_A)):
        for form_b, said_b, rule_b in (right[1], *((f, *_GRAD_B[f]) for f in _GRAD_B)):
            if form_a == form_b == "right":
                continue
            said = [f"a's gradient is out.grad @ b.T, not {said_a}"] if form_a != "right" else []
            said += [f"b's gradient is a.T @ out.grad, not {said_b}"] if form_b != "right" else []
            hint = (
                f"In out = a @ b, {' and '.join(said)}: each gradient has its "
                "operand's shape, and the transposed factor goes on the side "
                "that makes it so, even where square shapes would allow both."
            )
            if "numpy .T" in (form_a, form_b):
                hint += " " + _NUMPY_T
            changes = frozenset({f"a:{form_a}"} if form_a != "right" else set()) | frozenset(
                {f"b:{form_b}"} if form_b != "right" else set()
            )
            engine = _matmul_engine(rule_a, rule_b)
            variants.append(
                Variant(
                    "matmul-transposes",
                    hint,
                    reference_names(engine, exercise.defines),
                    "matmul",
                    changes,
                )
            )
    return variants


def _matmul_engine(
    rule_a: Callable[[Arr, Arr, Arr], Arr], rule_b: Callable[[Arr, Arr, Arr], Arr]
) -> type[Tensor]:
    def matmul(self: Tensor, other: Any) -> Tensor:
        other = self._lift(other)
        a, b = self.data, other.data
        return self._make(
            a @ b,
            (self, other),
            lambda g: (
                sum_to_shape(rule_a(a, b, g), a.shape),
                sum_to_shape(rule_b(a, b, g), b.shape),
            ),
        )

    return type("MatmulVariant", (Tensor,), {"__slots__": (), "__matmul__": matmul})
