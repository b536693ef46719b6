"""Whether a run of a probe passes, carries numbers, or behaves like another run (a known mistake's, a slipped
engine's): the predicates diagnosis is built from, each on one probe and one tolerance."""

from __future__ import annotations

from collections.abc import Mapping

from grader.core.compare import compare
from grader.core.exercise import Exercise
from grader.core.numeric import Tolerance
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.judge.diagnose.patterns import MISSING
from grader.judge.diagnose.weak_evidence import same_error
from grader.judge.oracle import Expected
from grader.judge.report import CheckResult
from grader.run.observed import GroupRun, ProbeRun


def passes(got: ProbeRun, want: Expected, raises: bool, tol: Tolerance) -> bool:
    if raises:
        return got.error is not None and isinstance(want.observations, ErrorInfo) and \
            same_error(got.error, want.observations)
    if got.error is not None or got.observations is None or isinstance(want.observations, ErrorInfo):
        return False
    return all(compare(value, got.observations.get(label, MISSING), want.tolerance(label, tol)) is None
               for label, value in want.observations.items())


def passes_on(run: GroupRun, index: int, want: Expected, tol: Tolerance) -> bool:
    got = run.probes[index]
    return got is not None and passes(got, want, isinstance(want.observations, ErrorInfo), tol)


def strong(run: GroupRun, index: int, expected: Expected | None = None, tol: Tolerance | None = None) -> bool:
    """Numbers matched, not just an exception, a text or zeros (nothing reached them), which many mistakes share.

    With `expected`, only the wrong values count: a right seed of 1.0 beside zeros is no evidence of how
    the zeros came about.
    """
    got = run.probes[index]
    if got is None or got.observations is None:
        return False
    want = None if expected is None or isinstance(expected.observations, ErrorInfo) else expected.observations
    for label, value in got.observations.items():
        if want is not None and expected is not None and tol is not None and label in want \
                and compare(want[label], value, expected.tolerance(label, tol)) is None:
            continue
        if (isinstance(value, Number) and value.value != 0) or \
                (isinstance(value, Array) and any(x != 0 for x in value.data)):
            return True
    return False


def locate(exercise: Exercise, check: CheckResult, runs: Mapping[str, GroupRun]) -> tuple[int, GroupRun] | None:
    name, device = (check.name[:-len(" [cuda]")], "cuda") if check.name.endswith(" [cuda]") else (check.name, "cpu")
    index = next((i for i, p in enumerate(exercise.probes) if p.name == name), None)
    run = runs.get(device)
    return None if index is None or run is None else (index, run)


def tolerance_of(exercise: Exercise, check: CheckResult, index: int) -> Tolerance:
    probe = exercise.probes[index]
    return probe.cuda_tolerance if check.name.endswith(" [cuda]") else probe.tolerance


def right(student: GroupRun, index: int, expected: Expected, tol: Tolerance) -> bool:
    got = student.probes[index]
    if got is None or got.observations is None or isinstance(expected.observations, ErrorInfo):
        return False
    return all(compare(want, got.observations.get(label, MISSING), expected.tolerance(label, tol)) is None
               for label, want in expected.observations.items())


def behaves_like(student: GroupRun, mutant: GroupRun | None, index: int, expected: Expected,
                  tol: Tolerance) -> bool:
    if mutant is None:
        return False
    got, theirs = student.probes[index], mutant.probes[index]
    if got is None or theirs is None:
        return False
    if got.error is not None or theirs.error is not None:  # the same exception, from the same probe
        return got.error is not None and theirs.error is not None and same_error(got.error, theirs.error)
    if isinstance(expected.observations, ErrorInfo):  # neither raised where the solution does: the same slip
        return True
    if got.observations is None or theirs.observations is None:
        return False
    return beyond_precision(got.observations, theirs.observations, expected, tol)


def beyond_precision(got: Mapping[str, Value], theirs: Mapping[str, Value], expected: Expected,
                     tol: Tolerance) -> bool:
    """A mistake's values are evidence only beyond what precision explains (grader.judge.precision): the student
    is farther from the right values than float32 arithmetic gives somewhere, the mistake is too wherever the
    student is, and the student is no farther from the mistake's values than that, everywhere. A correct float32
    answer can equal a mistake's values where the mistake does no harm yet (a first step, before any gradient
    piles up): that names nothing."""
    assert not isinstance(expected.observations, ErrorInfo)
    wrong = [label for label, want in expected.observations.items()
             if compare(want, got.get(label, MISSING), expected.explained(label, tol)) is not None]
    if not wrong:
        return False
    mutant_wrong = all(compare(expected.observations[label], theirs.get(label, MISSING),
                               expected.explained(label, tol)) is not None for label in wrong)
    same = all(label in theirs and compare(theirs[label], value, expected.explained(label, tol)) is None
               for label, value in got.items())
    return mutant_wrong and same
