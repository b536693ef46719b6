"""Which tensor names the whole submission supports: evidence a single check cannot give.

A name drawn from one check can be chance; these rules, applied to a tensor exercise's diagnosed
checks, keep a name only where the submission as a whole backs it:

- a known mistake matched on an exception alone stands where the student's wrong numbers back it;
- a variant named from an exception needs its very
  message and the student failing wherever it fails;
- a name given on nan alone (0/0 and inf/inf alike) needs other evidence for the same name;
- a ratio of the right answer needs more than one check with wrong numbers;
- zeros from a function exercise are placeholders not yet written, not a gradient nothing reached.
"""

from __future__ import annotations

import dataclasses
import math

from grader.core.compare import compare
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.judge.diagnose.evidence import Evidence
from grader.judge.diagnose.patterns import RATIOS
from grader.judge.report import Diagnosis, ExerciseResult
from grader.judge.tensor import tensor_variants

NOTHING = Diagnosis(
    kind="unknown", mistake="", hint="", evidence="no known mistake or pattern matches"
)


def raised_as(
    evidence: Evidence, variants: tensor_variants.VariantRuns, index: int
) -> Diagnosis | None:
    """The variant that raises this check's very error, where it also fits the whole submission.

    An exception is weak evidence, so: the same type and message (numbers too)
    as the variant's, no variant of another kind of mistake raising it, and the
    student failing every check the variant fails, with the same error wherever
    the variant raises (a `.T` that breaks only the batched products).
    """
    exercise, ran, expected = evidence.exercise, evidence.ran, evidence.expected
    probe_index, run = ran[index]
    got = run.probes[probe_index]
    error = None if got is None else got.error
    if error is None:
        return None
    raising = tensor_variants.raising(variants, probe_index, error)
    variant = tensor_variants.isolated(raising)
    if variant is None:
        return None
    results = {id(v): r for v, r in variants}
    tols = tuple(p.tolerance for p in exercise.probes)
    failed = {ran[i][0] for i in evidence.failing}

    def consistent(candidate: tensor_variants.Variant) -> bool:
        for probe in tensor_variants.fails(results[id(candidate)], expected, tols):
            theirs, mine = results[id(candidate)][probe].error, run.probes[probe]
            if probe not in failed or (
                theirs is not None
                and (mine is None or mine.error is None or mine.error.message != theirs.message)
            ):
                return False
        return True

    # the check shows what the raising variants share; one of them must fit the whole submission
    if not any(consistent(v) for v in raising):
        return None
    return Diagnosis(
        kind="pattern",
        mistake=variant.mistake,
        hint=variant.hint,
        evidence=f"the code raised {error.type_name}: {error.message.splitlines()[0][:160]}, as "
        f"the reference engine with this mistake ({variant.mistake}) does, and only there",
    )


def nan_alone(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """A name given on nan alone stands only where the
    same name has other evidence in the submission.

    nan is what many instabilities give (0/0 and inf/inf alike): a loss that is nan says
    that something overflowed or underflowed, not what. Its name needs a check where the
    values that went wrong are numbers, or a nan at the very elements the mistake makes nan.
    """
    weak = {i for i in evidence.failing if _wrong_only_nan(evidence, i)}
    named = set()
    for index in evidence.failing - weak:
        diagnosis = result.checks[index].diagnosis
        if diagnosis is not None and diagnosis.kind != "unknown":
            named.add(diagnosis.mistake)
    checks = []
    for index, check in enumerate(result.checks):
        found = check.diagnosis
        if index in weak and found is not None and found.kind != "unknown":
            if found.mistake not in named:
                check = dataclasses.replace(check, diagnosis=NOTHING)
        checks.append(check)
    return dataclasses.replace(result, checks=tuple(checks))


def _wrong_only_nan(evidence: Evidence, index: int) -> bool:
    exercise = evidence.exercise
    probe_index = evidence.probe_index(index)
    got, want = evidence.got(index), evidence.expected[probe_index]
    if got is None or got.observations is None or isinstance(want.observations, ErrorInfo):
        return False
    wrong = [
        got.observations.get(label)
        for label, value in want.observations.items()
        if compare(
            value,
            got.observations.get(label, _MISSING_VALUE),
            exercise.probes[probe_index].tolerance,
        )
        is not None
    ]
    return bool(wrong) and all(isinstance(v, Number) and math.isnan(v.value) for v in wrong)


_MISSING_VALUE: Value = ErrorInfo("missing", "nothing observed")
#: the ratios of the right answer, which chance can give on one
#: check: general (grader.judge.diagnose.patterns) and ours
_RATIO_NAMES = RATIOS | {"mean-scale"}


def ratios_alone(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """A ratio names a mistake only where more than one
    check has wrong numbers, or the check isolates it.

    One wrong check that happens to be a multiple of the right answer isolates nothing: a function
    that makes its own tensor instead of using the caller's errs everywhere else, and its one number
    can be any ratio.
    """
    numeric = [i for i in evidence.failing if _wrong_numbers(evidence, i)]
    if len(numeric) > 1:
        return result
    exercise = evidence.exercise

    def isolated(index: int, mistake: str) -> bool:
        # exactly N off, N a count the check's own code
        # averages over (x.mean()): the mean is the one suspect
        code = exercise.probes[evidence.probe_index(index)].code
        return mistake == "mean-scale" and ".mean(" in code

    checks = []
    for index, check in enumerate(result.checks):
        found = check.diagnosis
        if (
            index in evidence.failing
            and found is not None
            and found.kind == "pattern"
            and found.mistake in _RATIO_NAMES
            and not isolated(index, found.mistake)
        ):
            check = dataclasses.replace(check, diagnosis=NOTHING)
        checks.append(check)
    return dataclasses.replace(result, checks=tuple(checks))


def _wrong_numbers(evidence: Evidence, index: int) -> bool:
    exercise = evidence.exercise
    probe_index = evidence.probe_index(index)
    got, want = evidence.got(index), evidence.expected[probe_index]
    if got is None or got.observations is None or isinstance(want.observations, ErrorInfo):
        return False
    return any(
        isinstance(got.observations.get(label), (Number, Array))
        and compare(value, got.observations[label], exercise.probes[probe_index].tolerance)
        is not None
        for label, value in want.observations.items()
    )


def placeholders(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """Zeros from a function of a tensor exercise are its placeholders
    (np.zeros_like) left unwritten, not a gradient that nothing reached:
    there is no graph to walk, so the engine's advice would mislead."""
    if any(kind == "class" for _, kind in evidence.exercise.defines):
        return result
    checks = []
    for index, check in enumerate(result.checks):
        found = check.diagnosis
        if index in evidence.failing and found is not None and found.kind == "pattern":
            if found.mistake == "all-zero":
                check = dataclasses.replace(check, diagnosis=_UNWRITTEN)
        checks.append(check)
    return dataclasses.replace(result, checks=tuple(checks))


_UNWRITTEN = Diagnosis(
    kind="unknown",
    mistake="",
    hint="",
    evidence="every value is 0, as a function whose placeholders (0.0, np.zeros_like) are left "
    "unwritten gives: not written yet",
)


def errors_alone(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """A known mistake matched on an error alone stands only
    if it also matches the student's numbers somewhere.

    Many mistakes raise the same numpy error (a matmul of mismatched shapes); where the student's
    wrong numbers elsewhere are not that mistake's, the shared error is a coincidence, not evidence.
    """

    def numeric(index: int) -> bool:
        got = evidence.got(index)
        return (
            got is not None
            and got.observations is not None
            and any(isinstance(v, (Number, Array)) for v in got.observations.values())
        )

    def named(index: int) -> str | None:
        found = result.checks[index].diagnosis
        return found.mistake if found is not None and found.kind == "known-mistake" else None

    wrong_numbers = [i for i in evidence.failing if numeric(i)]
    backed = {named(i) for i in wrong_numbers} - {None}
    if not wrong_numbers:
        return result
    checks = []
    for index, check in enumerate(result.checks):
        if index in evidence.failing and not numeric(index):
            name = named(index)
            if name is not None and name not in backed:
                check = dataclasses.replace(check, diagnosis=NOTHING)
        checks.append(check)
    return dataclasses.replace(result, checks=tuple(checks))
