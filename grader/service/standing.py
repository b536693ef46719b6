"""Where each student stands: their submissions with their latest results, and which one counts under the course's
rules (last or best, the late policy, late days spent across assignments in deadline order). A deadline moved
later in course.toml (or an extension granted) applies to what was already submitted (`late_now`).

Read from the store a student (or an assignment) at a time: nothing here holds the whole class's reports.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, func, select

from grader.service.config import Course, Rules
from grader.service.db import schema
from grader.service.db.store import reading

s, r, j = schema.submissions.c, schema.results.c, schema.jobs.c


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One submission and its latest result (None while it waits for its first grading)."""

    id: int
    assignment: str
    filename: str
    sha256: str
    received_at: float
    days_late: float
    seed_token: str
    outcome: str | None
    score: float | None
    max_score: float | None
    public_score: float | None
    #: queued, running or done: the newest job's state (a regrade queues a new one)
    state: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Counted:
    """An assignment's counted submission for one student, and what it is worth after the late policy."""

    assignment: str
    row: Row | None
    factor: float
    score: float | None
    max_score: float | None
    late_days_used: int
    why: str


def rows_of(db: Connection, student: str | None = None, assignment: str | None = None,
            submission: int | None = None, limit: int | None = None) -> list[Row]:
    """Submissions, newest first, each with its newest result and the state of its newest job."""
    newest_job = select(j.submission_id, func.max(j.id).label("job")).group_by(j.submission_id).subquery()
    newest_result = select(r.submission_id, func.max(r.job_id).label("job")).group_by(r.submission_id).subquery()
    query = (select(s.id, s.assignment, s.filename, s.sha256, s.received_at, s.days_late, s.seed_token,
                    r.outcome, r.score, r.max_score, r.public_score, j.state)
             .join(newest_job, newest_job.c.submission_id == s.id)
             .join(schema.jobs, j.id == newest_job.c.job)
             .outerjoin(newest_result, newest_result.c.submission_id == s.id)
             .outerjoin(schema.results, r.job_id == newest_result.c.job)
             .order_by(s.received_at.desc(), s.id.desc()))
    if student is not None:
        query = query.where(s.student_id == student)
    if assignment is not None:
        query = query.where(s.assignment == assignment)
    if submission is not None:
        query = query.where(s.id == submission)
    if limit is not None:
        query = query.limit(limit)
    return [Row(id=x.id, assignment=x.assignment, filename=x.filename, sha256=x.sha256, received_at=x.received_at,
                days_late=x.days_late, seed_token=x.seed_token, outcome=x.outcome, score=x.score,
                max_score=x.max_score, public_score=x.public_score, state=x.state) for x in db.execute(query)]


def standing(engine: Engine, course: Course, student: str) -> dict[str, Counted]:
    """Each assignment's counted submission for `student`, late days spent in deadline order."""
    with reading(engine) as db:
        rows = rows_of(db, student)
    return count(course, student, rows)


def count(course: Course, student: str, rows: Sequence[Row]) -> dict[str, Counted]:
    return {rules.id: choice for rules, choice, _ in _counted(course, student, rows)}


def worths(course: Course, student: str, rows: Sequence[Row]) -> dict[int, tuple[Counted, bool]]:
    """What each of `student`'s graded submissions is worth under its assignment's rules now (with the late days
    left to that assignment, spent in deadline order), and whether it is the one that counts."""
    found = {}
    for rules, choice, budget in _counted(course, student, rows):
        for row in rows:
            if row.assignment == rules.id and row.score is not None:
                found[row.id] = (_worth(course, student, rules, row, budget),
                                 choice.row is not None and choice.row.id == row.id)
    return found


def _counted(course: Course, student: str, rows: Sequence[Row]) -> list[tuple[Rules, Counted, int]]:
    """Each assignment's rules, its counted submission, and the late days that were left to it."""
    budget = course.late_days
    found = []
    ordered = sorted(course.assignments.values(), key=lambda a: (a.deadline_for(student) or float("inf"), a.id))
    for rules in ordered:
        mine = [row for row in rows if row.assignment == rules.id]
        choice = _choose(course, student, rules, mine, budget)
        found.append((rules, choice, budget))
        budget -= choice.late_days_used
    return found


def span(days: float) -> str:
    """A time late in words: whole days, or hours where the course counts them (late_rounding = "hour")."""
    if days == int(days):
        return f"{int(days)} day{'s' if days != 1 else ''}"
    hours = round(days * 24)
    return f"{hours} hour{'s' if hours != 1 else ''}"


def factor_of(rules: Rules, days: float, budget: int) -> tuple[float, int, str]:
    """What a submission `days` late keeps of its score, the late days it spends, and why, in words."""
    if days <= 0:
        return 1.0, 0, "on time"
    if rules.late == "late-days":
        spent = math.ceil(days - 1e-9)  # a late day is spent whole, whatever the rounding of days late
        if spent <= budget:
            return 1.0, spent, f"{spent} late day{'s' if spent != 1 else ''} spent"
        return 0.0, 0, f"{span(days)} late, with {budget} late days left: counts 0"
    if rules.late == "none":
        return 0.0, 0, f"{span(days)} late: this assignment takes no late work (counts 0)"
    if rules.max_late_days is not None and days > rules.max_late_days:
        return 0.0, 0, f"{span(days)} late, past the {rules.max_late_days:g} days late work is taken: counts 0"
    factor = max(0.0, 1.0 - rules.penalty_per_day * days)
    return factor, 0, f"{span(days)} late: {round((1 - factor) * 100)}% off"


def late_policy(rules: Rules, days: float, late_days: int) -> str:
    """What the late policy makes of an upload `days` late, for its receipt; empty when it is on time."""
    if days <= 0:
        return ""
    if rules.late == "late-days":
        spent = math.ceil(days - 1e-9)
        return (f"{span(days)} late: it counts in full if you have {spent} of your late days left (the course "
                f"gives {late_days}; grade submit --status), else it counts 0")
    factor, _, why = factor_of(rules, days, 0)
    said = why if factor == 0.0 else f"{why}: it counts {round(factor * 100)}% of what it earns"
    # under "last", a late upload takes the place of an earlier one on time, whatever it is worth
    return said + ("; your last submission is the one that counts, so this one replaces any earlier"
                   if rules.counts == "last" else "")


def _choose(course: Course, student: str, rules: Rules, rows: Sequence[Row], budget: int) -> Counted:
    # a grader error is never the student's: such a submission neither counts nor stands in the way
    rows = [row for row in rows if row.outcome != "grader-error"]
    graded = [row for row in rows if row.score is not None]
    if not rows:
        return Counted(assignment=rules.id, row=None, factor=0.0, score=None, max_score=None, late_days_used=0,
                       why="no submission")
    if rules.counts == "last":
        last = rows[0]  # newest first
        if last.score is None:
            return Counted(assignment=rules.id, row=last, factor=1.0, score=None, max_score=None, late_days_used=0,
                           why="the last submission is still being graded")
        return _worth(course, student, rules, last, budget)
    if not graded:
        return Counted(assignment=rules.id, row=rows[0], factor=1.0, score=None, max_score=None, late_days_used=0,
                       why="not graded yet")
    # best: the highest score after the late policy; on a tie, the one that spends fewer late days, then the earlier
    return max((_worth(course, student, rules, row, budget) for row in graded),
               key=lambda c: (c.score or 0.0, -c.late_days_used, -(c.row.received_at if c.row else 0.0)))


def late_now(course: Course, rules: Rules | None, student: str, row: Row) -> float:
    """How late `row` counts: as its receipt said, or less where the deadline in force now is later (an extension
    granted, a deadline moved in course.toml, after the upload). A deadline moved earlier applies from then on:
    what a receipt said on time stays on time."""
    if rules is None:
        return row.days_late
    return min(row.days_late, course.days_late(rules, student, row.received_at))


def _worth(course: Course, student: str, rules: Rules, row: Row, budget: int) -> Counted:
    factor, used, why = factor_of(rules, late_now(course, rules, student, row), budget)
    score = round((row.score or 0.0) * factor, 6)
    return Counted(assignment=rules.id, row=row, factor=factor, score=score, max_score=row.max_score,
                   late_days_used=used, why=why)


def report_json(engine: Engine, submission: int) -> str | None:
    """The newest report of a submission, as stored (every check, hidden ones too)."""
    with reading(engine) as db:
        return db.execute(select(r.report).where(r.submission_id == submission)
                          .order_by(r.job_id.desc()).limit(1)).scalar_one_or_none()


def owner_of(engine: Engine, submission: int) -> str | None:
    with reading(engine) as db:
        return db.execute(select(s.student_id).where(s.id == submission)).scalar_one_or_none()
