"""When one run matches another: the predicates diagnosis is built from, each on one probe and
one tolerance, and when a match on an exception or a text is evidence at all.

A run of a probe passes, carries numbers, or behaves like another run (a known mistake's, a slipped
engine's). Numbers isolate a mistake: two different mistakes rarely give the same gradients. An
exception, or a text such as gradcheck's "Jacobian mismatch", is shared by many: every wrong
backward fails gradcheck the same way, and both the untouched detach-fix starter and
`t.clone().numpy()` raise "Can't call numpy() on Tensor that requires grad". So a weak match names
a mistake only when nothing else could give it: the probe's texts do not come from gradcheck, no
mutant of another mistake gives the same outcome there, the student is right wherever that mistake
leaves the values right (an overflow named as unstable only where the values are right
elsewhere), and, for an exception, the student's code does what the mutant's code does that the
solution's does not (a `.clone`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from grader.core.compare import compare
from grader.core.exercise import Probe
from grader.core.numeric import Tolerance
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.judge.oracle import Expected
from grader.run.observed import GroupRun, ProbeRun

#: what stands for an observation a run did not make
MISSING = ErrorInfo("missing", "nothing observed")


def passes(got: ProbeRun, want: Expected, raises: bool, tol: Tolerance) -> bool:
    if raises:
        return (
            got.error is not None
            and isinstance(want.observations, ErrorInfo)
            and same_error(got.error, want.observations)
        )
    if (
        got.error is not None
        or got.observations is None
        or isinstance(want.observations, ErrorInfo)
    ):
        return False
    return all(
        compare(value, got.observations.get(label, MISSING), want.tolerance(label, tol)) is None
        for label, value in want.observations.items()
    )


def passes_on(run: GroupRun, index: int, want: Expected, tol: Tolerance) -> bool:
    got = run.probes[index]
    return got is not None and passes(got, want, isinstance(want.observations, ErrorInfo), tol)


def has_numbers(
    run: GroupRun, index: int, expected: Expected | None = None, tol: Tolerance | None = None
) -> bool:
    """Numbers matched, not just an exception, a text or
    zeros (nothing reached them), which many mistakes share.

    With `expected`, only the wrong values count: a right seed of
    1.0 beside zeros is no evidence of how the zeros came about.
    """
    got = run.probes[index]
    if got is None or got.observations is None:
        return False
    want = (
        None
        if expected is None or isinstance(expected.observations, ErrorInfo)
        else expected.observations
    )
    for label, value in got.observations.items():
        if (
            want is not None
            and expected is not None
            and tol is not None
            and label in want
            and compare(want[label], value, expected.tolerance(label, tol)) is None
        ):
            continue
        if (isinstance(value, Number) and value.value != 0) or (
            isinstance(value, Array) and any(x != 0 for x in value.data)
        ):
            return True
    return False


def all_right(student: GroupRun, index: int, expected: Expected, tol: Tolerance) -> bool:
    got = student.probes[index]
    if got is None or got.observations is None or isinstance(expected.observations, ErrorInfo):
        return False
    return all(
        compare(want, got.observations.get(label, MISSING), expected.tolerance(label, tol)) is None
        for label, want in expected.observations.items()
    )


def behaves_like(
    student: GroupRun, mutant: GroupRun | None, index: int, expected: Expected, tol: Tolerance
) -> bool:
    if mutant is None:
        return False
    got, theirs = student.probes[index], mutant.probes[index]
    if got is None or theirs is None:
        return False
    if got.error is not None or theirs.error is not None:  # the same exception, from the same probe
        return (
            got.error is not None
            and theirs.error is not None
            and same_error(got.error, theirs.error)
        )
    if isinstance(
        expected.observations, ErrorInfo
    ):  # neither raised where the solution does: the same slip
        return True
    if got.observations is None or theirs.observations is None:
        return False
    return beyond_precision(got.observations, theirs.observations, expected, tol)


def beyond_precision(
    got: Mapping[str, Value], theirs: Mapping[str, Value], expected: Expected, tol: Tolerance
) -> bool:
    """A mistake's values are evidence only beyond what precision explains
    (grader.judge.precision): the student is farther from the right values than
    float32 arithmetic gives somewhere, the mistake is too wherever the student is,
    and the student is no farther from the mistake's values than that, everywhere.
    A correct float32 answer can equal a mistake's values where the mistake does no
    harm yet (a first step, before any gradient piles up): that names nothing."""
    assert not isinstance(expected.observations, ErrorInfo)
    wrong = [
        label
        for label, want in expected.observations.items()
        if compare(want, got.get(label, MISSING), expected.explained(label, tol)) is not None
    ]
    if not wrong:
        return False
    mutant_wrong = all(
        compare(
            expected.observations[label], theirs.get(label, MISSING), expected.explained(label, tol)
        )
        is not None
        for label in wrong
    )
    same = all(
        label in theirs and compare(theirs[label], value, expected.explained(label, tol)) is None
        for label, value in got.items()
    )
    return mutant_wrong and same


def from_gradcheck(probe: Probe) -> bool:
    """The probe calls gradcheck, whose failure texts are the same for every wrong backward."""
    try:
        tree = ast.parse(probe.code)
    except SyntaxError:
        return False
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "gradcheck"
        for n in ast.walk(tree)
    )


def same_outcome(a: ProbeRun | None, b: ProbeRun | None, tol: Tolerance) -> bool:
    """The same exception (numbers aside), or the same observations."""
    if a is None or b is None:
        return False
    if a.error is not None or b.error is not None:
        return a.error is not None and b.error is not None and same_error(a.error, b.error)
    if (
        a.observations is None
        or b.observations is None
        or set(a.observations) != set(b.observations)
    ):
        return False
    return all(
        compare(a.observations[label], b.observations[label], tol) is None
        for label in a.observations
    )


_DIGITS = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")


def same_error(a: ErrorInfo, b: ErrorInfo) -> bool:
    """The same type, and the same message but for the numbers in it (sizes, indices, values)."""
    return a.type_name == b.type_name and _DIGITS.sub("#", a.message) == _DIGITS.sub("#", b.message)


def distinctive(mutant: Path, solution: Path | None) -> frozenset[str]:
    """What the mutant's code does that the solution's does not: attributes and
    functions it calls or reads (nothing where there is no solution to compare with)."""
    return frozenset() if solution is None else _distinctive(mutant, solution)


@cache
def _distinctive(mutant: Path, solution: Path) -> frozenset[str]:
    return _used(mutant) - _used(solution)


def _used(path: Path) -> frozenset[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    return frozenset(node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute))
