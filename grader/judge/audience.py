"""Who reads a report, and what each reader may see of it: the one place a report is redacted.

Every renderer (the text report, the JSON, the feedback page, the notebook's table, the course
server's API and pages) writes the report it is given. What a reader may see is decided here,
once, by `redact(report, audience)`:

- the instructor: the report as graded, every check, what the code printed, the time it took;
- a student after release (their deadline has passed; a batch's feedback pages; check() in a
  notebook): every check, hidden ones as the judge left them (status and points, never inputs
  or expected values), and the full diagnosis;
- a student before release, and a released pack's reader: the public checks alone (the hidden
  checks' points are named as still to come, as a released pack names them), each public
  check's diagnosis as made on the public checks' evidence alone, and nothing else of the
  hidden run: not the integrity line it may have added, not the time it took (code can take its
  time for what it saw there).

For every student, what the code printed is withheld whenever it ran hidden checks: it could
have printed their inputs, and once the hidden checks are taken out, a page could no longer
tell. Redacting a redacted report again changes nothing, so a renderer written for students may
redact what it is given.
"""

from __future__ import annotations

import dataclasses
import enum

from grader.judge.hidden_runs import HIDDEN_INTEGRITY
from grader.judge.report import ExerciseResult, Report

#: what a student reads where the code's output is withheld
OUTPUT_WITHHELD = (
    "What your code printed is withheld: it ran hidden checks too, whose inputs "
    "it could have printed."
)


class Audience(enum.Enum):
    """Who a report is written for."""

    INSTRUCTOR = "instructor"
    STUDENT_BEFORE_RELEASE = "student before release"
    STUDENT_AFTER_RELEASE = "student after release"
    RELEASED_PACK = "released pack"

    @classmethod
    def student(cls, released: bool) -> Audience:
        """A student, before or after their results are released."""
        return cls.STUDENT_AFTER_RELEASE if released else cls.STUDENT_BEFORE_RELEASE


def redact(report: Report, audience: Audience) -> Report:
    """`report` as `audience` may see it."""
    if audience is Audience.INSTRUCTOR:
        return report
    released = audience is Audience.STUDENT_AFTER_RELEASE
    exercises = report.exercises
    if not released:
        exercises = tuple(_public(exercise) for exercise in exercises)
    exercises = tuple(_diagnosed(exercise, released) for exercise in exercises)
    ran = any(_hidden_checks(exercise) for exercise in report.exercises)
    notes = report.notes
    if ran and report.output.strip():
        notes = (*notes, OUTPUT_WITHHELD)
    integrity = report.integrity
    if not released:
        integrity = tuple(line for line in integrity if line != HIDDEN_INTEGRITY)
    return dataclasses.replace(
        report,
        exercises=exercises,
        output="" if ran else report.output,
        output_truncated=False if ran else report.output_truncated,
        notes=notes,
        integrity=integrity,
        seconds=report.seconds if released else 0.0,
    )


def _hidden_checks(exercise: ExerciseResult) -> bool:
    return any(check.visibility == "hidden" for check in exercise.checks)


def _public(exercise: ExerciseResult) -> ExerciseResult:
    """The exercise's public checks, the points of its hidden ones still to come."""
    if not _hidden_checks(exercise):
        return exercise
    public = tuple(c for c in exercise.checks if c.visibility != "hidden")
    held = 0.0
    for check in exercise.checks:
        if check.visibility == "hidden" and check.status != "skipped":
            held += check.max_score
    points = round(exercise.hidden_points + held, 6)
    return dataclasses.replace(exercise, checks=public, hidden_points=points)


def _diagnosed(exercise: ExerciseResult, released: bool) -> ExerciseResult:
    """The exercise with one diagnosis a check: the full one once released, else the one made
    on the public checks' evidence alone, where the report keeps one apart (reports before 1.6
    keep none)."""
    apart = [c.public_diagnosis for c in exercise.checks if c.public_diagnosis is not None]
    if exercise.public_masked is None and not apart:
        return exercise
    checks = []
    for check in exercise.checks:
        diagnosis = check.diagnosis
        if not released and check.public_diagnosis is not None:
            diagnosis = check.public_diagnosis
        checks.append(dataclasses.replace(check, diagnosis=diagnosis, public_diagnosis=None))
    masked = exercise.masked
    if not released and exercise.public_masked is not None:
        masked = exercise.public_masked
    return dataclasses.replace(exercise, checks=tuple(checks), masked=masked, public_masked=None)
