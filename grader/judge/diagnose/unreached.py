"""Methods an engine lacks or has not written that no check got as
far as: named from the syntax tree, beside the ones the errors name.

A check stops at its first error. An engine without `__sub__` and without `__rsub__` fails
"a number on either side" at `x - 2`, which names `__sub__`; `2 - x`, two lines later,
never runs, so the student fixes one method, grades again, and only then hears of the
other. Where the syntax tree settles it, the report names each method that a public check
stopped at another missing or unwritten method calls, and that the exercise's class does
not define (missing-method) or defines as the starter's placeholder with nothing after the
class replacing it (not-written-yet), as a mistake hidden behind the others (the exercise's
`masked` list), with the checks that call it. Public checks only: what a hidden check's
code calls is part of what it keeps from the student until its results are released.

It settles it only for a class whose members the file spells out: no base class, metaclass
or class decorator (any may supply the method), no `__getattr__` or `__getattribute__`, no
instance attribute of the method's name, nothing anywhere in the file assigned to an
attribute of that name (`Node.__rsub__ = f` in a function), and a file that never calls
`setattr`, `exec`, `locals` or `vars` (each may add a method the syntax tree cannot see).
"""

from __future__ import annotations

import dataclasses

from grader.judge.diagnose.blame import FORWARD
from grader.judge.diagnose.evidence import Evidence
from grader.judge.report import Diagnosis, ExerciseResult, RuleFault
from grader.judge.uses import INTERFACE, probe_uses

#: what can add a member the syntax tree does not show
_DYNAMIC = frozenset({"setattr", "exec", "locals", "vars", "__getattr__", "__getattribute__"})
#: the longest class name a hint quotes whole
_NAME_CHARS = 60


def unreached_missing(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The result, with each method that the checks stopped at another
    missing method call and the class lacks, not yet named, among the masked."""
    exercise, ran, defined = evidence.exercise, evidence.ran, evidence.facts()
    if defined is None or _DYNAMIC & defined.identifiers:
        return result
    owner = defined.class_named(exercise.contract.class_name)
    if owner is None or _DYNAMIC & owner.members:
        return result
    named = {
        d.rule.method
        for d in (*(c.diagnosis for c in result.checks), *result.masked)
        if d is not None and d.rule is not None and d.rule.how == "missing"
    }
    callers: dict[str, list[str]] = {}
    for index, check in enumerate(result.checks):
        probe = exercise.probes[ran[index][0]] if index in ran else None
        stopped_at = check.diagnosis.rule if check.diagnosis is not None else None
        # only a check that stopped at another method missing or unwritten: it
        # never got as far as the rest; and a hidden check's code is not the
        # student's to read before its results are, so what it calls is not said
        if (
            check.status != "error"
            or stopped_at is None
            or stopped_at.how != "missing"
            or probe is None
            or probe.visibility == "hidden"
        ):
            continue
        for method in probe_uses(exercise, probe):
            if method != stopped_at.method:
                callers.setdefault(method, []).append(check.name)
    found = []
    for method in INTERFACE:
        theirs = exercise.contract.backward if method == "backward" else method
        if (
            method not in callers
            or theirs in named
            or theirs in owner.attributes
            or theirs in defined.patched
        ):
            continue
        if owner.defines(theirs) is False:
            found.append(
                _diagnosis(
                    owner.name, theirs, FORWARD.get(method, ""), callers[method], written=False
                )
            )
        elif (owner.name, theirs) in defined.unwritten_methods:
            found.append(
                _diagnosis(
                    owner.name, theirs, FORWARD.get(method, ""), callers[method], written=True
                )
            )
    return dataclasses.replace(result, masked=(*result.masked, *found)) if found else result


def _diagnosis(
    cls: str, method: str, computes: str, checks: list[str], *, written: bool
) -> Diagnosis:
    cls = (
        cls if len(cls) <= _NAME_CHARS else cls[: _NAME_CHARS - 3] + "..."
    )  # the student's name: any length
    quoted = ", ".join(f"'{name}'" for name in checks[:3]) + (
        f" and {len(checks) - 3} more" if len(checks) > 3 else ""
    )
    what = f" ({computes})" if computes else ""
    one = len(checks) == 1
    calls = (
        f"{'the check' if one else 'the checks'} {quoted} "
        f"call{'s' if one else ''} it: {'it' if one else 'they'} stopped "
        "at another method missing first, so this one is still to come"
    )
    if written:
        return Diagnosis(
            kind="pattern",
            mistake="not-written-yet",
            hint=(f"{cls}.{method}{what} is not written yet, and {calls}. Write it too."),
            evidence=f"the syntax tree: {cls}.{method}'s body is only a "
            "placeholder, and nothing after the class replaces it",
            rule=RuleFault(method=method, operand="", how="missing"),
        )
    return Diagnosis(
        kind="pattern",
        mistake="missing-method",
        hint=(f"Your class {cls} has no {method}{what}, and {calls}. Define {method} too."),
        evidence=f"the syntax tree: class {cls} defines no "
        f"{method}, and nothing in the file adds one",
        rule=RuleFault(method=method, operand="", how="missing"),
    )
