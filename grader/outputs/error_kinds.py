"""The kind of error behind a lost check (SyntaxError,
timeout, crash...): its cause, and the text saying it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from grader.judge.report import CheckResult, ExerciseResult, Report
from grader.outputs.students import StudentReport


class ErrorKind(TypedDict):
    # an exception type (SyntaxError), or timeout, crash, exited, not attempted, rule violation...
    kind: str
    students: int
    checks: int  # the check results it cost
    example_student: str
    example_problem: str  # the problem text the kind was read from


# Only the opening of a text is matched: what follows it can quote
# the student's own exception message, which could say anything.

_TYPE = r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"  # a dotted name, without the sentence's full stop
_RAISED = re.compile(r"(?:Your code raised|Your file could not be loaded:|A cell raised) " + _TYPE)
_READING_RAISED = re.compile(r"but reading it raised " + _TYPE)
_DEVICE = re.compile(r"On [A-Z]+: ")  # a problem from one of several devices' runs
_OPENINGS = (
    ("Not implemented yet", "not attempted"),
    ("Your code did not finish within", "timeout"),
    ("Your code crashed", "crash"),
    ("Your code ended the process with exit code", "exited"),
    ("Your code was stopped by", "resource limit"),
    ("Your code sent more than", "oversized reply"),
    ("Your code sent a reply the grader could not read", "unreadable reply"),
    ("Your code ended, and the grader could not learn how", "ended unexpectedly"),
    ("Your code the grader's code in the child failed", "grader failure"),
    ("Your code breaks a rule", "rule violation"),
    ("Right values, but not scored", "rule violation"),
    ("Your file does not define", "missing definition"),
    ("Not run: it needs", "missing definition"),
    ("The grader failed", "grader failure"),
    ("Your notebook does not define", "missing definition"),
    ("The grader's oracles disagree", "oracle disagreement"),
)
_RULE = "Your code breaks a rule"


def without_device(problem: str) -> str:
    return problem[device.end() :] if (device := _DEVICE.match(problem)) else problem


def error_kind(problem: str) -> str | None:
    """The kind of error a problem text reports (RuntimeError,
    timeout, crash...); None for a plain wrong answer."""
    problem = without_device(problem)
    if match := _RAISED.match(problem):
        return match.group(1)
    for opening, kind in _OPENINGS:
        if problem.startswith(opening):
            return kind
    match = _READING_RAISED.search(problem)  # a failed check whose observation raised
    return match.group(1) if match else None


def _causes(check: CheckResult, exercise: ExerciseResult, report: Report) -> tuple[str, ...]:
    """Where to read why a check lost its points: its
    own problem, or the ones it points at ("see above")."""
    problem = check.problem
    if problem.startswith("Right result, but not scored"):
        return exercise.problems  # the rule it broke
    # A rule checker that cannot parse a cell reports rules
    # as broken; what stopped the check is elsewhere.
    stopped = tuple(
        p for p in (*exercise.problems, *report.problems) if not without_device(p).startswith(_RULE)
    )
    if problem.startswith("Not run: your file did not load"):
        return (
            *report.problems,
            *stopped,
        )  # the load error first: the missing names follow from it
    if problem.startswith(
        (
            "Not run: your notebook did not load",
            "Not run: your code stopped",
            "Not run: your file does not define",
            "Not run: your notebook does not define",
        )
    ):
        # this exercise's missing names or stop first: the report's may be an unrelated cell's
        return stopped
    return (problem,)


#: how a check's cause (grader.judge.report.Cause) is counted in the class summary
_CAUSE_KINDS = {
    "not-attempted": "not attempted",
    "timeout": "timeout",
    "cpu-time": "resource limit",
    "memory": "resource limit",
    "signal": "crash",
    "exit": "exited",
    "output-limit": "oversized reply",
    "reply": "unreadable reply",
    "rule": "rule violation",
    "missing-name": "missing definition",
    "unreadable": "unreadable",
    "grader": "grader failure",
}


def check_error(
    check: CheckResult, exercise: ExerciseResult, report: Report
) -> tuple[str, str] | None:
    """The error kind that cost this check its points,
    read from its cause, and the text that says it."""
    cause = check.cause
    if cause.kind in ("passed", "wrong-value", "precision", "skipped", "no-submission"):
        return None
    if cause.kind == "exception":
        # a hidden check's exception keeps no type (the
        # submission chooses it, grader.judge.hidden_runs)
        kind = cause.detail or (
            "an error in a hidden check" if check.visibility == "hidden" else "other error"
        )
    elif cause.kind == "grader" and "oracles disagree" in cause.detail:
        kind = "oracle disagreement"
    else:
        kind = _CAUSE_KINDS.get(cause.kind, "other error")
    texts = _causes(check, exercise, report)
    return kind, next(
        (t for t in texts if error_kind(t) == kind), texts[0] if texts else check.problem
    )


@dataclass
class _KindTally:
    example_student: str
    example_problem: str
    students: set[str] = field(default_factory=set)
    checks: int = 0


def error_kinds(graded: Sequence[StudentReport]) -> list[ErrorKind]:
    """Each kind of error in the class, with how many
    students and checks it cost, the most students first."""
    tallies: dict[str, _KindTally] = {}
    for row in graded:  # by student id, so each kind's example is the first such student
        for exercise in row.report.exercises:
            for check in exercise.checks:
                found = (
                    check_error(check, exercise, row.report)
                    if check.status in ("failed", "error")
                    else None
                )
                if found is not None:
                    tally = tallies.setdefault(found[0], _KindTally(row.student.id, found[1]))
                    tally.students.add(row.student.id)
                    tally.checks += 1
    kinds = [
        ErrorKind(
            kind=kind,
            students=len(t.students),
            checks=t.checks,
            example_student=t.example_student,
            example_problem=t.example_problem,
        )
        for kind, t in tallies.items()
    ]
    return sorted(kinds, key=lambda k: (-k["students"], -k["checks"], k["kind"]))
