"""When a match with a known mistake on an exception
or a text, not numbers, is evidence for that mistake.

Numbers isolate a mistake: two different mistakes rarely give the same gradients. An exception, or a
text such as gradcheck's "Jacobian mismatch", is shared by many: every wrong backward fails
gradcheck the same way, and both the untouched detach-fix starter and `t.clone().numpy()` raise
"Can't call numpy() on Tensor that requires grad". So a weak match names a mistake only when nothing
else could give it: the probe's texts do not come from gradcheck, no mutant of another mistake gives
the same outcome there, the student is right wherever that mistake leaves the values right (an
overflow named as unstable only where the values are right elsewhere), and, for an exception, the
student's code does what the mutant's code does that the solution's does not (a `.clone`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from grader.core.compare import compare
from grader.core.exercise import Probe
from grader.core.numeric import Tolerance
from grader.core.values import ErrorInfo
from grader.run.observed import ProbeRun

if TYPE_CHECKING:  # the evidence's own module reads same_error from here
    from grader.judge.diagnose.evidence import Evidence, MutantRun


def isolates(
    evidence: Evidence, index: int, mutant: MutantRun, mutant_fails: Collection[int]
) -> bool:
    """Whether the student's weak match on check `index` with the run of `mutant` (which fails
    the checks `mutant_fails`) is evidence for its mistake."""
    exercise, tol = evidence.exercise, evidence.tolerance(index)
    probe_index, student = evidence.located[index]
    theirs = mutant.run
    if theirs is None or from_gradcheck(exercise.probes[probe_index]):
        return False
    outcome = theirs.probes[probe_index]
    for other in evidence.mutants():
        if other.mutant.mistake == mutant.mutant.mistake or other.run is None:
            continue
        if same_outcome(other.run.probes[probe_index], outcome, tol):
            return False
    # the student is wrong exactly where the mistake
    # is, and the same way on every one of those checks
    if not set(evidence.failing) <= set(mutant_fails):
        return False
    for i in mutant_fails:
        at = evidence.probe_index(i)
        if not same_outcome(student.probes[at], theirs.probes[at], tol):
            return False
    got, defined = student.probes[probe_index], evidence.facts()
    if got is None or got.error is None or defined is None:
        return True
    distinct = mutant.distinctive
    if distinct is None:
        distinct = distinctive(mutant.mutant.path, exercise.solution)
    return not distinct or bool(distinct & defined.identifiers)


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
