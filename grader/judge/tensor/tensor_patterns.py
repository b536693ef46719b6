"""Tensor mistakes named from the numbers: the tensor passes of grader.judge.diagnose.passes.

A failed check of a tensor exercise that no known mistake explains is named here only on evidence
that isolates one mistake:

- a fact about its arrays: a gradient that is right once summed over the broadcast
  axes, given back its size-1 axes, reshaped, or its axes put back in order; or one
  that is exactly N times the right one, N the size of an input's axis (a mean's 1/N);
- the reference with one rule changed (grader.judge.tensor.tensor_variants: matmul's transposes,
  and the variants an exercise declares in its folder), where every value of the check is what that
  variant gives on the same inputs, and the variant is wrong there, or where it raises the very
  error the student's code does.

Then the whole submission must back each name (grader.judge.tensor.tensor_evidence).
Where none holds, the check keeps what the general diagnosis found, or nothing.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Callable, Sequence

import numpy as np

from grader.core.compare import compare
from grader.core.numeric import Tolerance
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.judge.diagnose.evidence import Evidence
from grader.judge.diagnose.hints import TENSOR_TOO
from grader.judge.oracle import Expected
from grader.judge.report import Diagnosis, ExerciseResult
from grader.judge.tensor import tensor_errors, tensor_evidence, tensor_variants
from grader.judge.tensor.tensor_errors import axes_text, shape_text
from grader.run.inputs import Inputs, TensorInput
from grader.run.observed import ProbeRun

_RATIO = 1e-6  # how close a ratio must be to N
#: a pass over the evidence (grader.judge.diagnose.passes)
Run = Callable[[Evidence, ExerciseResult], ExerciseResult]

HINTS = {
    "unreduced-broadcast": "A broadcast input's gradient must be summed back to that "
    "input's shape: over the axes broadcasting added in front, "
    "and over the axes it stretched from size 1 (keepdims=True).",
    "keepdims-missing": "The values are right, but the gradient lost its input's size-1 axes: "
    "reduce with keepdims=True, or reshape the gradient to the input's shape.",
    "extra-size-1-axes": "The values are right, but the gradient has axes of size 1 its input does "
    "not have (a sum with keepdims=True where the input has no such axis): reduce without "
    "keepdims, or reshape the gradient to the input's shape.",
    "unreshaped-gradient": "The values are right, in the wrong shape: a reshape's "
    "backward reshapes the gradient back to its input's shape.",
    "permuted-gradient": "The values are right, with the axes in another order: a transpose's "
    "backward applies the inverse permutation (np.argsort(axes)), and in "
    "a matmul each transpose belongs on its side.",
    "summed-wrong-axis": "A gradient summed over the wrong axes: the gradient of a broadcast (a "
    "bias added to every row, a column statistic) sums over the axes that were copied, the "
    "batch axis 0 for a bias of shape (D,) added to (N, D), and keeps the input's own axes.",
    "float32-precision": "The values are float32, about 7 significant digits, where "
    "the checks compare float64's 16: keep the data in float64 "
    "(np.array(data, dtype=np.float64), and no dtype=np.float32).",
    "mean-scale": "Exactly N times off, N the size of the averaged axes: a mean divides by N, the "
    "number of values each mean averages, in its forward and in its backward, once.",
}


def numpy_safe(run: Run) -> Run:
    """A tensor pass, safe from any number a submission sends (inf, nan, 1e308: numpy's warnings
    are silenced, and a value that cannot be compared names nothing): a bug here costs the
    tensor names, not what the passes before it found."""

    def safe(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
        try:
            with np.errstate(all="ignore"):
                return run(evidence, result)
        except Exception:  # noqa: BLE001 - the grader's own bug: keep what the passes found
            return result

    return safe


def name_arrays(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The result, with the failed checks that a known mistake does not explain named where
    the arrays say so: an error stated where the syntax tree places it, the reference with one
    rule changed (tensor_variants), or a fact about the arrays."""
    exercise = evidence.exercise
    checks = list(result.checks)
    variants: tensor_variants.VariantRuns | None = None
    passing = [
        exercise.probes[evidence.probe_index(i)].code
        for i, c in enumerate(checks)
        if c.status == "passed" and i in evidence.ran
    ]
    for index in sorted(evidence.failing):
        check = checks[index]
        if check.diagnosis is not None and check.diagnosis.kind == "known-mistake":
            continue
        probe_index = evidence.probe_index(index)
        got, want = evidence.got(index), evidence.expected[probe_index]
        if got is None or isinstance(want.observations, ErrorInfo):
            continue
        general = (
            check.diagnosis is None
            or check.diagnosis.kind == "unknown"
            or check.diagnosis.mistake in TENSOR_TOO
        )
        if got.observations is None and got.error is not None and general:
            # what the error states where the syntax tree places it, before a general word on a None
            code = exercise.probes[probe_index].code
            found = tensor_errors.stated(exercise, got.error, code, evidence.facts(), passing)
            if found is not None:
                checks[index] = dataclasses.replace(check, diagnosis=found)
                continue
        if variants is None:
            variants = tensor_variants.variant_runs(exercise, evidence.inputs)
        if got.observations is None:
            if check.diagnosis is not None and check.diagnosis.kind != "unknown":
                continue  # an error that already says what it is (a missing method)
            found = _unsummed_error(got.error) or tensor_evidence.raised_as(
                evidence, variants, index
            )
        else:
            tol = exercise.probes[probe_index].tolerance
            found = tensor_variants.matching(variants, probe_index, got, want, tol) or _arrays(
                got, want, evidence.inputs[probe_index], tol
            )
        if found is not None:
            checks[index] = dataclasses.replace(check, diagnosis=found)
    return dataclasses.replace(result, checks=tuple(checks))


def _arrays(got: ProbeRun, want: Expected, inputs: Inputs, tol: Tolerance) -> Diagnosis | None:
    """One array pattern that explains every wrong observation of the check, or None."""
    assert got.observations is not None and not isinstance(want.observations, ErrorInfo)
    sizes = _axis_sizes(inputs)
    found: list[tuple[str, str, str]] = []
    for label, expected in want.observations.items():
        observed = got.observations.get(label)
        if observed is None or compare(expected, observed, tol) is None:
            continue
        pattern = observation_pattern(expected, observed, sizes, tol) or summed_wrong_axes(
            expected, observed, inputs, tol
        )
        if pattern is None:
            return None
        found.append((label, *pattern))
    if not found or len({mistake for _, mistake, _ in found}) != 1:
        return None
    mistake = found[0][1]
    details = "; ".join(f"{label} {detail}" for label, _, detail in found)
    return Diagnosis(
        kind="pattern", mistake=mistake, hint=f"{HINTS[mistake]} Here: {details}.", evidence=details
    )


def observation_pattern(
    expected: Value, got: Value, sizes: Sequence[int], tol: Tolerance
) -> tuple[str, str] | None:
    """(mistake, what shows it) when `got` is `expected`
    but for one array mistake; None otherwise."""
    with np.errstate(
        all="ignore"
    ):  # a submission's huge or tiny numbers overflow a ratio: that names nothing
        return _observation_pattern(expected, got, sizes, tol)


def _observation_pattern(
    expected: Value, got: Value, sizes: Sequence[int], tol: Tolerance
) -> tuple[str, str] | None:
    want, have = _array(expected), _array(got)
    if want is None or have is None or not np.isfinite(have).all():
        return None
    if want.shape != have.shape:
        return _reshaped(want, have, tol)
    if _float32(want, have):
        return (
            "float32-precision",
            "agrees with the right value to float32's 7 digits, and every element is a float32",
        )
    permuted = _permuted(want, have, tol)
    if permuted is not None:
        return permuted
    return _scaled(want, have, sizes)


def _reshaped(want: np.ndarray, have: np.ndarray, tol: Tolerance) -> tuple[str, str] | None:
    shown = f"has shape {shape_text(have.shape)} where {shape_text(want.shape)} was expected"
    if (
        have.size == want.size
        and have.ndim != want.ndim
        and _close(have.reshape(want.shape), want, tol)
        and [n for n in want.shape if n != 1] == [n for n in have.shape if n != 1]
    ):
        if have.ndim < want.ndim:
            return "keepdims-missing", f"{shown}; given back the size-1 axes it is right"
        return "extra-size-1-axes", f"{shown}; without the extra size-1 axes it is right"
    axes = _broadcast_axes(want.shape, have.shape)
    if axes is not None and _close(have.sum(axis=axes).reshape(want.shape), want, tol):
        return "unreduced-broadcast", f"{shown}; summed over {axes_text(axes)} it is right"
    permuted = _permuted(want, have, tol)
    if permuted is not None:
        return permuted
    if have.size == want.size and _close(have.reshape(want.shape), want, tol):
        return "unreshaped-gradient", f"{shown}; reshaped to {shape_text(want.shape)} it is right"
    return None


def _permuted(want: np.ndarray, have: np.ndarray, tol: Tolerance) -> tuple[str, str] | None:
    if want.ndim < 2:
        return None
    for order in itertools.permutations(range(want.ndim)):
        if order == tuple(range(want.ndim)) or tuple(want.shape[i] for i in order) != have.shape:
            continue
        if _close(
            want.transpose(order), have, tol
        ):  # the check failed, so `have` is not `want` itself
            what = (
                "is the right gradient transposed"
                if want.ndim == 2
                else f"is the right gradient with its axes in the order {order}"
            )
            return "permuted-gradient", what
    return None


def _scaled(want: np.ndarray, have: np.ndarray, sizes: Sequence[int]) -> tuple[str, str] | None:
    big = np.abs(want) > 1e-12
    if not big.any() or (np.abs(have[~big]) > 1e-12).any():
        return None
    ratios = have[big] / want[big]
    ratio = float(ratios[0])
    if not np.all(np.abs(ratios - ratio) <= _RATIO * max(1.0, abs(ratio))):
        return None
    for n in sorted(
        n for n in set(sizes) if n >= 3
    ):  # 2 is also a gradient counted twice: no evidence of a mean
        if abs(ratio - n) <= _RATIO * n:
            return (
                "mean-scale",
                f"is exactly {n} times the right value "
                f"(N = {n}, the size of an axis averaged over)",
            )
        if abs(ratio - 1 / n) <= _RATIO / n:
            return (
                "mean-scale",
                f"is exactly the right value divided by {n} (a division by N = {n} too many)",
            )
    return None


def summed_wrong_axes(
    expected: Value, got: Value, inputs: Inputs, tol: Tolerance
) -> tuple[str, str] | None:
    """(summed-wrong-axis, what shows it) where the right value is an input summed over
    some axes and the student's is the same input summed over other axes; None otherwise."""
    want, have = _array(expected), _array(got)
    if want is None or have is None or not np.isfinite(have).all():
        return None
    for name, value in inputs.items():
        if (
            not isinstance(value, TensorInput)
            or value.dtype == "int64"
            or not 1 < len(value.shape) <= 4
        ):
            continue
        data = np.array(value.data, dtype=np.float64).reshape(value.shape)
        sums = []
        for k in range(1, data.ndim + 1):
            for axes in itertools.combinations(range(data.ndim), k):
                sums += [(axes, keep, data.sum(axis=axes, keepdims=keep)) for keep in (False, True)]
        right = sorted(
            {
                axes
                for axes, _, total in sums
                if total.shape == want.shape and _close(total, want, tol)
            }
        )
        wrong = sorted(
            {
                axes
                for axes, _, total in sums
                if total.shape == have.shape and _close(total, have, tol)
            }
        )
        if len(right) == 1 and wrong and right[0] not in wrong:
            return (
                "summed-wrong-axis",
                f"is {name} summed over {axes_text(wrong[0])}, where the right one is {name} "
                f"summed over {axes_text(right[0])}",
            )
    return None


def _float32(want: np.ndarray, have: np.ndarray) -> bool:
    """Every value is a float32 (float64 arithmetic almost
    never lands on one) and right to float32's precision."""
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    return (
        bool(have.size)
        and bool((have.astype(np.float32).astype(np.float64) == have).all())
        and bool(np.allclose(have, want, rtol=1e-4, atol=1e-5 * scale))
    )


_UNSUMMED = re.compile(
    r"non-broadcastable output operand with shape \((?P<small>[\d, ]*)\) doesn't match the "
    r"broadcast shape \((?P<big>[\d, ]*)\)"
)


def _unsummed_error(error: ErrorInfo | None) -> Diagnosis | None:
    """numpy's own words for `grad += g` with g of a
    broadcast shape: the gradient was not summed back."""
    match = (
        None
        if error is None or error.type_name != "ValueError"
        else _UNSUMMED.search(error.message)
    )
    if match is None:
        return None
    small, big = (
        tuple(int(n) for n in match[k].replace(" ", "").split(",") if n) for k in ("small", "big")
    )
    if _broadcast_axes(small, big) is None:
        return None
    detail = (
        f"a gradient of shape {shape_text(big)} was added to one "
        f"of shape {shape_text(small)}, which it broadcast from"
    )
    # the shapes go in the evidence only, which is withheld with the
    # check's inputs: the message is the submission's to choose
    return Diagnosis(
        kind="pattern",
        mistake="unreduced-broadcast",
        hint=HINTS["unreduced-broadcast"],
        evidence=f"the code raised ValueError: {match[0]}; {detail}",
    )


def _axis_sizes(inputs: Inputs) -> list[int]:
    """Sizes a mean can divide by: each float input's
    axes, and products of its axes (mean over several)."""
    sizes: set[int] = set()
    for value in inputs.values():
        if isinstance(value, TensorInput) and value.dtype != "int64":
            dims = [n for n in value.shape if n > 1]
            for k in range(1, len(dims) + 1):
                sizes.update(math.prod(c) for c in itertools.combinations(dims, k))
    return sorted(sizes)


def _broadcast_axes(small: tuple[int, ...], big: tuple[int, ...]) -> tuple[int, ...] | None:
    """The axes of `big` that broadcasting `small`
    to `big` added or stretched; None if it cannot."""
    if len(small) > len(big):
        return None
    padded = (1,) * (len(big) - len(small)) + small
    if any(s not in (1, b) for s, b in zip(padded, big, strict=True)):
        return None
    axes = tuple(i for i, (s, b) in enumerate(zip(padded, big, strict=True)) if s == 1 and b != 1)
    return axes or None


def _array(value: Value) -> np.ndarray | None:
    if isinstance(value, Number):
        return np.array(value.value)
    if isinstance(value, Array):
        return np.array(value.data, dtype=np.float64).reshape(value.shape)
    return None


def _close(a: np.ndarray, b: np.ndarray, tol: Tolerance) -> bool:
    return bool(np.all(np.abs(a - b) <= tol.atol + tol.rtol * np.abs(b)))


#: the tensor passes, by the names grader.judge.diagnose.passes declares them in order
TENSOR_PASSES: dict[str, Run] = {
    "errors-alone": numpy_safe(tensor_evidence.errors_alone),
    "arrays": numpy_safe(name_arrays),
    "nan-alone": numpy_safe(tensor_evidence.nan_alone),
    "ratios-alone": numpy_safe(tensor_evidence.ratios_alone),
    "placeholders": numpy_safe(tensor_evidence.placeholders),
}
