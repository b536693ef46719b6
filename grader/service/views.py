"""What a student may see of their own report: before their deadline, the public checks only (the hidden checks'
points are named as still to come, as in a released pack); after it, every check, hidden ones as the report model
shows them (status and points, never inputs or expected values). Never the seed: its token stands in its place.
The counted copy of a report (the gradebook's and the LMS's) carries the late policy's factor in its scores.
"""

from __future__ import annotations

import dataclasses
import json

from grader.judge.report import ExerciseResult, Report
from grader.outputs.render_json import report_from_dict


def stored_report(text: str) -> Report:
    return report_from_dict(json.loads(text))


def student_view(report: Report, *, hidden_released: bool) -> Report:
    """`report` as its student may see it now.

    What the code printed is withheld whenever it ran hidden checks, as the feedback page does: it could have
    printed their inputs. (Once the hidden checks are taken out, the page could no longer tell.)
    """
    exercises = report.exercises if hidden_released else tuple(_public(e) for e in report.exercises)
    hidden = any(c.visibility == "hidden" for e in report.exercises for c in e.checks)
    notes = report.notes
    if hidden and report.output.strip():
        notes = (*notes, "What your code printed is withheld: it ran hidden checks too, whose inputs it could "
                         "have printed.")
    return dataclasses.replace(report, exercises=exercises, seed=0, output="" if hidden else report.output,
                               output_truncated=False if hidden else report.output_truncated, notes=notes)


def _public(exercise: ExerciseResult) -> ExerciseResult:
    hidden = [c for c in exercise.checks if c.visibility == "hidden"]
    if not hidden:
        return exercise
    return dataclasses.replace(
        exercise, checks=tuple(c for c in exercise.checks if c.visibility != "hidden"),
        hidden_points=round(exercise.hidden_points + sum(c.max_score for c in hidden if c.status != "skipped"), 6))


def counted_copy(report: Report, factor: float, why: str) -> Report:
    """The report whose scores the gradebook takes: each check's points times the late policy's factor."""
    if factor == 1.0:
        return report
    exercises = tuple(dataclasses.replace(e, checks=tuple(dataclasses.replace(c, score=round(c.score * factor, 6))
                                                          for c in e.checks)) for e in report.exercises)
    note = f"Late policy: {why}; the scores here are {round(factor * 100)}% of what the checks earned."
    return dataclasses.replace(report, exercises=exercises, notes=(*report.notes, note))
