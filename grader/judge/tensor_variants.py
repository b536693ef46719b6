"""The tensor reference with one rule changed, to name what a tensor exercise's mutants may not cover.

Like grader.judge.slips for the scalar engine: the exercise's probes run here, in the trusted process
(these are our engines), on the reference with one known mistake in one rule. A variant is named
on a failed check only where every value of the check is what it gives on the student's inputs,
the variant is wrong there, and the values are numbers (an error alone isolates nothing):

- matmul's backward with its transposes on the wrong side, missing, or the result transposed,
  for one operand or both (exercises that define `Tensor` and multiply matrices);
- batch norm's backward without the path through the mean, the variance, or both (`batchnorm_backward`);
- a softmax loss without the shift by the row maximum (exp overflows), or taking the log of
  softmax probabilities that underflow to 0 (`softmax_loss`).
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
from grader.judge.oracle import Expected
from grader.judge.report import Diagnosis
from grader.run.execute import compile_probe, namespace, run_probe
from grader.run.inputs import Inputs
from grader.run.observed import ProbeRun
from reference.tensor import Array as Arr
from reference.tensor import Tensor, sum_to_shape
from reference.tensor_tasks import BatchNormPaths, functions, reference_names


@dataclass(frozen=True, slots=True)
class Variant:
    mistake: str
    hint: str
    #: what a probe sees on this variant, by the names the exercise defines
    names: dict[str, object]


VariantRuns = tuple[tuple[Variant, tuple[ProbeRun, ...]], ...]
_CACHE: dict[tuple[str, str, int], VariantRuns] = {}
_CACHED = 16

#: matmul's gradients, out = a @ b: (what a student wrote, as a formula, and what it computes)
_GRAD_A: dict[str, tuple[str, Callable[[Arr, Arr, Arr], Arr]]] = {
    "wrong side": ("b.T @ out.grad", lambda a, b, g: b.swapaxes(-1, -2) @ g),
    "no transpose": ("out.grad @ b", lambda a, b, g: g @ b),
    "transposed": ("b @ out.grad.T", lambda a, b, g: b @ g.swapaxes(-1, -2)),
}
_GRAD_B: dict[str, tuple[str, Callable[[Arr, Arr, Arr], Arr]]] = {
    "wrong side": ("out.grad @ a.T", lambda a, b, g: g @ a.swapaxes(-1, -2)),
    "no transpose": ("a @ out.grad", lambda a, b, g: a @ g),
    "transposed": ("out.grad.T @ a", lambda a, b, g: g.swapaxes(-1, -2) @ a),
}
_RIGHT_A: Callable[[Arr, Arr, Arr], Arr] = lambda a, b, g: g @ b.swapaxes(-1, -2)  # noqa: E731
_RIGHT_B: Callable[[Arr, Arr, Arr], Arr] = lambda a, b, g: a.swapaxes(-1, -2) @ g  # noqa: E731

_BATCH_NORM = "Batch norm's gradient reaches x on three paths: through x - mean directly, through the batch mean, " \
              "and through the batch variance (every x moves both). "


def variant_runs(exercise: Exercise, inputs: tuple[Inputs, ...]) -> VariantRuns:
    """Every probe of `exercise` on every variant that applies to it; the same inputs give the same runs."""
    key = (str(exercise.spec_path), exercise.id, hash(tuple(tuple(sorted(i.items())) for i in inputs)))
    if key not in _CACHE:
        if len(_CACHE) >= _CACHED:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = tuple((v, _run(exercise, inputs, v)) for v in _variants(exercise))
    return _CACHE[key]


def matching(runs: VariantRuns, probe_index: int, got: ProbeRun, want: Expected, tol: Tolerance) -> Diagnosis | None:
    """The variant whose values this check's are, where exactly one mistake fits."""
    if got.observations is None or isinstance(want.observations, ErrorInfo) or \
            not any(isinstance(v, (Number, Array)) for v in got.observations.values()):
        return None
    fits = [v for v, results in runs if _same(got, results[probe_index], want, tol)]
    if not fits or len({(v.mistake, v.hint) for v in fits}) != 1:
        return None
    variant = fits[0]
    return Diagnosis(kind="pattern", mistake=variant.mistake, hint=variant.hint,
                     evidence=f"every value matches the reference engine with this mistake ({variant.mistake})")


def _same(got: ProbeRun, theirs: ProbeRun, want: Expected, tol: Tolerance) -> bool:
    if theirs.observations is None or got.observations is None or isinstance(want.observations, ErrorInfo):
        return False
    wrong = any(compare(expected, theirs.observations.get(label, _MISSING), tol) is not None
                for label, expected in want.observations.items())
    return wrong and all(compare(theirs.observations[label], value, tol) is None if label in theirs.observations
                         else False for label, value in got.observations.items())


_MISSING: Value = ErrorInfo("missing", "nothing observed")


def _run(exercise: Exercise, inputs: tuple[Inputs, ...], variant: Variant) -> tuple[ProbeRun, ...]:
    results = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):  # an overflowing variant overflows on purpose
        warnings.simplefilter("ignore")
        for probe, probe_inputs in zip(exercise.probes, inputs, strict=True):
            code = compile_probe(probe.name, probe.code, dict(probe.observe))
            outcome = run_probe(code, namespace("tensor", variant.names, probe_inputs, "cpu"))
            results.append(ProbeRun(None, outcome) if isinstance(outcome, ErrorInfo) else ProbeRun(outcome, None))
    return tuple(results)


def _variants(exercise: Exercise) -> list[Variant]:
    defined = {name for name, _ in exercise.defines}
    found: list[Variant] = []
    if "Tensor" in defined and any("@" in p.code or "matmul" in p.code for p in exercise.probes):
        found += _matmul_variants(exercise)
    if "batchnorm_backward" in defined:
        found += _batch_norm_variants(exercise)
    if "softmax_loss" in defined:
        found += _softmax_variants(exercise)
    return found


def _matmul_variants(exercise: Exercise) -> list[Variant]:
    variants = []
    for form in _GRAD_A:
        for wrong_a, wrong_b in ((True, False), (False, True), (True, True)):
            rule_a = _GRAD_A[form][1] if wrong_a else _RIGHT_A
            rule_b = _GRAD_B[form][1] if wrong_b else _RIGHT_B
            said = [f"a's gradient is out.grad @ b.T, not {_GRAD_A[form][0]}"] if wrong_a else []
            said += [f"b's gradient is a.T @ out.grad, not {_GRAD_B[form][0]}"] if wrong_b else []
            hint = f"In out = a @ b, {' and '.join(said)}: each gradient has its operand's shape, and the " \
                   "transposed factor goes on the side that makes it so, even where square shapes would allow both."
            engine = _matmul_engine(rule_a, rule_b)
            variants.append(Variant("matmul-transposes", hint, reference_names(engine, exercise.defines)))
    return variants


def _matmul_engine(rule_a: Callable[[Arr, Arr, Arr], Arr],
                   rule_b: Callable[[Arr, Arr, Arr], Arr]) -> type[Tensor]:
    def matmul(self: Tensor, other: Any) -> Tensor:
        other = self._lift(other)
        a, b = self.data, other.data
        return self._make(a @ b, (self, other), lambda g: (sum_to_shape(rule_a(a, b, g), a.shape),
                                                           sum_to_shape(rule_b(a, b, g), b.shape)))

    return type("MatmulVariant", (Tensor,), {"__slots__": (), "__matmul__": matmul})


def _batch_norm_variants(exercise: Exercise) -> list[Variant]:
    reference = functions(Tensor)
    backward = reference["batchnorm_backward"]
    cases = [
        ("batchnorm-mean-path-missing", BatchNormPaths(mean=False),
         "The path through the mean is missing: dx also gets -sum(dxhat) / (N * std) in each column."),
        ("batchnorm-variance-path-missing", BatchNormPaths(variance=False),
         "The path through the variance is missing: dx also gets -xhat * sum(dxhat * xhat) / (N * std)."),
        ("batchnorm-direct-path-only", BatchNormPaths(mean=False, variance=False),
         "Only the direct path (dxhat / std) is there: the paths through the mean and the variance are missing."),
    ]
    variants = []
    for mistake, paths, hint in cases:
        names = reference_names(Tensor, exercise.defines)
        names["batchnorm_backward"] = lambda dout, cache, paths=paths: backward(dout, cache, paths)
        variants.append(Variant(mistake, _BATCH_NORM + hint, names))
    return variants


def _softmax_variants(exercise: Exercise) -> list[Variant]:
    def loss(shift: bool, log_of_probs: bool) -> Callable[[Arr, Arr], tuple[float, Arr]]:
        def softmax_loss(x: Arr, y: Arr) -> tuple[float, Arr]:
            x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.int64)
            n = x.shape[0]
            z = x - x.max(axis=1, keepdims=True) if shift else x
            p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
            logp = np.log(p) if log_of_probs else z - np.log(np.exp(z).sum(axis=1, keepdims=True))
            dx = p.copy()
            dx[np.arange(n), y] -= 1
            return float(-logp[np.arange(n), y].mean()), dx / n

        return softmax_loss

    names = reference_names(Tensor, exercise.defines)
    overflow = "exp overflows for large logits (above about 709), giving inf and then nan: subtract each row's " \
               "maximum before exp; the softmax does not change."
    return [
        Variant("softmax-overflow", overflow, {**names, "softmax_loss": loss(shift=False, log_of_probs=True)}),
        Variant("softmax-overflow", overflow, {**names, "softmax_loss": loss(shift=False, log_of_probs=False)}),
        Variant("log-of-softmax-underflow", "The shift is right, but the log of a probability that underflowed to 0 "
                "is -inf: take the log-softmax directly, z - log(sum(exp(z))) with z = x - max(x).",
                {**names, "softmax_loss": loss(shift=True, log_of_probs=True)}),
    ]
