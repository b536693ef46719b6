"""What a student may see of their own report: before their deadline, the public checks only (the
hidden checks' points are named as still to come, as in a released pack), and nothing else of the
hidden run: not the integrity line it may have added, not the time it took, not what its verdicts
add to a public check's diagnosis (each public check's diagnosis is the one made on the public
checks' evidence alone: grader.judge.diagnose.public_diagnosis); after it, every check, hidden
ones as the report model shows them (status and points, never inputs or expected values), and the
full diagnosis, with the late policy applied to the scores. A report names the seed it was really
graded with the way the store drew it: the token of a seed drawn from the course secret (never
the seed, from which the hidden inputs follow), or the course's one fixed seed. The counted copy
of a report (the gradebook's and the LMS's) carries the late policy's factor in its scores.
"""

from __future__ import annotations

import dataclasses
import json

from grader.judge.hidden_runs import HIDDEN_INTEGRITY
from grader.judge.report import ExerciseResult, Report
from grader.outputs.render_json import report_from_dict
from grader.service.standing import Counted

#: how the store names a course's fixed seed (grader.service.intake): "seed-N"
FIXED_SEED = "seed-"


def stored_report(text: str) -> Report:
    return report_from_dict(json.loads(text))


def as_graded(report: Report, seed_token: str) -> Report:
    """`report` naming the seed its submission was graded
    with, from the store's record of it (`seed_token`).

    Reports stored before they carried the token hold
    the seed itself: it never leaves the store that way."""
    if seed_token.startswith(FIXED_SEED) and seed_token[len(FIXED_SEED) :].isdigit():
        return dataclasses.replace(report, seed=int(seed_token[len(FIXED_SEED) :]), seed_token=None)
    return dataclasses.replace(report, seed=None, seed_token=seed_token)


def shown(
    text: str, *, seed_token: str, hidden_released: bool, worth: tuple[Counted, bool] | None
) -> Report:
    """The stored report `text` as its student may see it now; after the
    deadline, scored as it counts (`worth`: what the late policy leaves of it,
    and whether it is the submission that counts: grader.service.standing)."""
    view = student_view(as_graded(stored_report(text), seed_token), hidden_released=hidden_released)
    if hidden_released and worth is not None:
        counted, counts = worth
        view = counted_copy(view, counted.factor, counted.why)
        if not counts:
            view = dataclasses.replace(
                view,
                notes=(
                    *view.notes,
                    f"Another of your submissions counts for "
                    f"{counted.assignment} (grade submit --status).",
                ),
            )
    return view


def student_view(report: Report, *, hidden_released: bool) -> Report:
    """`report` as its student may see it now.

    What the code printed is withheld whenever it ran hidden checks, as the feedback page
    does: it could have printed their inputs. (Once the hidden checks are taken out, the
    page could no longer tell.) Before the deadline, the report's time is withheld too:
    the hidden run is part of it, and code can take its time for what it saw there.
    """
    exercises = tuple(
        _diagnosed(e, hidden_released)
        for e in (
            report.exercises if hidden_released else tuple(_public(e) for e in report.exercises)
        )
    )
    hidden = any(c.visibility == "hidden" for e in report.exercises for c in e.checks)
    notes = report.notes
    if hidden and report.output.strip():
        notes = (
            *notes,
            "What your code printed is withheld: it ran hidden checks too, whose inputs it could "
            "have printed.",
        )
    integrity = (
        report.integrity
        if hidden_released
        else tuple(t for t in report.integrity if t != HIDDEN_INTEGRITY)
    )
    return dataclasses.replace(
        report,
        exercises=exercises,
        output="" if hidden else report.output,
        output_truncated=False if hidden else report.output_truncated,
        notes=notes,
        integrity=integrity,
        seconds=report.seconds if hidden_released else 0.0,
    )


def _public(exercise: ExerciseResult) -> ExerciseResult:
    hidden = [c for c in exercise.checks if c.visibility == "hidden"]
    if not hidden:
        return exercise
    return dataclasses.replace(
        exercise,
        checks=tuple(c for c in exercise.checks if c.visibility != "hidden"),
        hidden_points=round(
            exercise.hidden_points + sum(c.max_score for c in hidden if c.status != "skipped"), 6
        ),
    )


def _diagnosed(exercise: ExerciseResult, hidden_released: bool) -> ExerciseResult:
    """The exercise with one diagnosis a check: the full one once the hidden
    checks are released, else the one made on the public checks' evidence
    alone, where the report keeps one apart (reports before 1.6 keep none)."""
    if exercise.public_masked is None and all(c.public_diagnosis is None for c in exercise.checks):
        return exercise
    checks = tuple(
        dataclasses.replace(
            c,
            public_diagnosis=None,
            diagnosis=c.diagnosis
            if hidden_released or c.public_diagnosis is None
            else c.public_diagnosis,
        )
        for c in exercise.checks
    )
    masked = (
        exercise.masked
        if hidden_released or exercise.public_masked is None
        else exercise.public_masked
    )
    return dataclasses.replace(exercise, checks=checks, masked=masked, public_masked=None)


def counted_copy(report: Report, factor: float, why: str) -> Report:
    """The report whose scores the gradebook takes:
    each check's points times the late policy's factor."""
    if factor == 1.0 and why == "on time":
        return report
    exercises = tuple(
        dataclasses.replace(
            e,
            checks=tuple(
                dataclasses.replace(c, score=round(c.score * factor, 6)) for c in e.checks
            ),
        )
        for e in report.exercises
    )
    note = (
        f"Late policy: {why}; the scores here are {round(factor * 100)}% of what the checks earned."
    )
    return dataclasses.replace(report, exercises=exercises, notes=(*report.notes, note))


def set_copy(report: Report, score: float, why: str) -> Report:
    """The report whose scores the gradebook takes when an instructor set
    the score by hand: `score` shared over the checks in proportion to their
    points (the last takes what rounding leaves), so that every format and
    the LMS read that score, and a note that says who set it and why."""
    checks = [(e.id, c.name) for e in report.exercises for c in e.checks]
    most = sum(c.max_score for e in report.exercises for c in e.checks)
    given: dict[tuple[str, str], float] = {}
    for key, check in zip(checks, (c for e in report.exercises for c in e.checks), strict=True):
        given[key] = round(score * check.max_score / most, 6) if most > 0 else 0.0
    if checks:
        given[checks[-1]] = round(score - sum(v for k, v in given.items() if k != checks[-1]), 6)
    exercises = tuple(
        dataclasses.replace(
            e, checks=tuple(dataclasses.replace(c, score=given[(e.id, c.name)]) for c in e.checks)
        )
        for e in report.exercises
    )
    note = f"Score {why}; the checks' points here are shared out to make it, in proportion to their points."
    return dataclasses.replace(report, exercises=exercises, notes=(*report.notes, note))
