"""The stored reports, as their readers get them.

A student reads their report redacted for them (grader.judge.audience): before their deadline as
a student before release, after it as a student after release, with the late policy applied to
its scores; an instructor reads it as its student will once it is released. A report names the
seed it was really graded with the way the store drew it: the token of a seed drawn from the
course secret (never the seed, from which every check's inputs follow), or the course's one fixed
seed. The counted copy of a report (the gradebook's and the LMS's) carries the late policy's
factor in its scores, or the score an instructor set.

What a request builds from a report (its JSON, its page) is kept in a bounded cache, built once
per result and reader rather than per request.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from sqlalchemy import Engine, select

from grader.judge.audience import Audience, redact
from grader.judge.report import Report
from grader.outputs.render_json import report_from_dict
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.standing import Counted

T = TypeVar("T")
#: how the store names a course's fixed seed (grader.service.uploads): "seed-N"
FIXED_SEED = "seed-"
#: what a submission is worth now, as its reader may see it: what the late policy leaves of it,
#: and whether it is the one that counts (grader.service.standing.worths)
Worth = tuple[Counted, bool]
#: answers kept, the least recently read given up first: a report is bounded (a got value's
#: prefix, shape and size: grader.judge.plain), so this bounds the memory too
SIZE = 512


def stored_report(text: str) -> Report:
    return report_from_dict(json.loads(text))


def as_graded(report: Report, seed_token: str) -> Report:
    """`report` naming the seed its submission was graded with, from the store's record of it
    (`seed_token`).

    Reports stored before they carried the token hold the seed itself: it never leaves the store
    that way."""
    fixed = seed_token.removeprefix(FIXED_SEED)
    if seed_token.startswith(FIXED_SEED) and fixed.isdigit():
        return dataclasses.replace(report, seed=int(fixed), seed_token=None)
    return dataclasses.replace(report, seed=None, seed_token=seed_token)


def for_reader(text: str, *, seed_token: str, audience: Audience, worth: Worth | None) -> Report:
    """The stored report `text` as `audience` may read it now; once released, scored as it
    counts (`worth`: grader.service.standing)."""
    report = redact(as_graded(stored_report(text), seed_token), audience)
    if audience is not Audience.STUDENT_AFTER_RELEASE or worth is None:
        return report
    counted, counts = worth
    report = counted_copy(report, counted.factor, counted.why)
    if counts:
        return report
    elsewhere = (
        f"Another of your submissions counts for {counted.assignment} (grade submit --status)."
    )
    return dataclasses.replace(report, notes=(*report.notes, elsewhere))


def counted_copy(report: Report, factor: float, why: str) -> Report:
    """The report whose scores the gradebook takes: each check's points times the late
    policy's factor."""
    if factor == 1.0 and why == "on time":
        return report
    exercises = []
    for exercise in report.exercises:
        checks = tuple(
            dataclasses.replace(check, score=round(check.score * factor, 6))
            for check in exercise.checks
        )
        exercises.append(dataclasses.replace(exercise, checks=checks))
    note = (
        f"Late policy: {why}; the scores here are {round(factor * 100)}% of what the checks earned."
    )
    return dataclasses.replace(report, exercises=tuple(exercises), notes=(*report.notes, note))


def set_copy(report: Report, score: float, why: str) -> Report:
    """The report whose scores the gradebook takes when an instructor set the score by hand:
    `score` shared over the checks in proportion to their points (the last takes what rounding
    leaves), so that every format and the LMS read that score, and a note that says who set it
    and why."""
    keys, points = [], []
    for exercise in report.exercises:
        for check in exercise.checks:
            keys.append((exercise.id, check.name))
            points.append(check.max_score)
    most = sum(points)
    given: dict[tuple[str, str], float] = {}
    for key, check_points in zip(keys, points, strict=True):
        given[key] = round(score * check_points / most, 6) if most > 0 else 0.0
    if keys:
        others = sum(value for key, value in given.items() if key != keys[-1])
        given[keys[-1]] = round(score - others, 6)
    exercises = []
    for exercise in report.exercises:
        checks = tuple(
            dataclasses.replace(check, score=given[(exercise.id, check.name)])
            for check in exercise.checks
        )
        exercises.append(dataclasses.replace(exercise, checks=checks))
    note = (
        f"Score {why}; the checks' points here are shared out to make it, in proportion to their "
        "points."
    )
    return dataclasses.replace(report, exercises=tuple(exercises), notes=(*report.notes, note))


class ReportCache:
    """What requests build from stored reports, by (result, what else it depends on). A result
    is never rewritten: a regrade writes a new one under its own job id, so a kept answer is
    never stale."""

    def __init__(self, size: int = SIZE) -> None:
        self._size = size
        self._built: OrderedDict[Hashable, object] = OrderedDict()
        # store calls, and so these, run in the thread pool
        self._lock = threading.Lock()
        self.built = 0

    def get(
        self, engine: Engine, submission: int, key: Hashable, build: Callable[[str], T]
    ) -> T | None:
        """`build(report)` of the submission's newest stored report, kept where this result
        and `key` were built before; None where it has no report yet."""
        results = schema.results.c
        # the id alone: a hit never reads the report
        newest = (
            select(results.job_id)
            .where(results.submission_id == submission)
            .order_by(results.job_id.desc())
            .limit(1)
        )
        with reading(engine) as db:
            job = db.execute(newest).scalar_one_or_none()
        if job is None:
            return None
        full = (job, key)
        with self._lock:
            if full in self._built:
                self._built.move_to_end(full)
                found: T = self._built[full]  # type: ignore[assignment]
                return found
        with reading(engine) as db:
            report = select(results.report).where(results.job_id == job)
            text = db.execute(report).scalar_one_or_none()
        if text is None:
            return None
        made = build(text)
        with self._lock:
            self.built += 1
            self._built[full] = made
            while len(self._built) > self._size:
                self._built.popitem(last=False)
        return made


def cache_key(worth: Worth | None) -> Hashable:
    """What of a submission's worth its answer shows (`for_reader`): the late policy's factor
    and why, and whether it is the one that counts."""
    if worth is None:
        return None
    counted, counts = worth
    return (counted.assignment, counted.factor, counted.why, counts)
