"""Where each student stands: their submissions with their latest results, and which one counts under the course's
rules (last or best, the late policy, late days spent across assignments in deadline order).

Read from the store a student (or an assignment) at a time: nothing here holds the whole class's reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, func, select

from grader.service import schema
from grader.service.config import Course, Rules
from grader.service.store import reading

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
    budget = course.late_days
    counted: dict[str, Counted] = {}
    ordered = sorted(course.assignments.values(), key=lambda a: (a.deadline_for(student) or float("inf"), a.id))
    for rules in ordered:
        mine = [row for row in rows if row.assignment == rules.id]
        choice = _choose(rules, mine, budget)
        budget -= choice.late_days_used
        counted[rules.id] = choice
    return counted


def factor_of(rules: Rules, days: float, budget: int) -> tuple[float, int, str]:
    """What a submission `days` late keeps of its score, the late days it spends, and why, in words."""
    if days <= 0:
        return 1.0, 0, "on time"
    whole = int(days)
    if rules.late == "late-days":
        if whole <= budget:
            return 1.0, whole, f"{whole} late day{'s' if whole != 1 else ''} spent"
        return 0.0, 0, f"{whole} days late, with {budget} late days left: counts 0"
    if rules.late == "none":
        return 0.0, 0, "late: this assignment takes no late work (counts 0)"
    if rules.max_late_days is not None and days > rules.max_late_days:
        return 0.0, 0, f"{whole} days late, past the {rules.max_late_days:g} days late work is taken: counts 0"
    factor = max(0.0, 1.0 - rules.penalty_per_day * days)
    return factor, 0, f"{whole} day{'s' if whole != 1 else ''} late: {round((1 - factor) * 100)}% off"


def _choose(rules: Rules, rows: Sequence[Row], budget: int) -> Counted:
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
        return _worth(rules, last, budget)
    if not graded:
        return Counted(assignment=rules.id, row=rows[0], factor=1.0, score=None, max_score=None, late_days_used=0,
                       why="not graded yet")
    # best: the highest score after the late policy; on a tie, the one that spends fewer late days, then the earlier
    return max((_worth(rules, row, budget) for row in graded),
               key=lambda c: (c.score or 0.0, -c.late_days_used, -(c.row.received_at if c.row else 0.0)))


def _worth(rules: Rules, row: Row, budget: int) -> Counted:
    factor, used, why = factor_of(rules, row.days_late, budget)
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
