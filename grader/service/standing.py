"""Where each student stands: their submissions with their
latest results, and what counts for each assignment.

What counts is one function of the rules in force and a student's submissions (`plan`, and
`count` and `worths` over it), and every reader takes it from here: the student's pages and
`grade submit`, the class table, the gradebook and its export, the LMS. For each assignment,
the rules offer choices: under counts = "best" any graded submission, under "last" the newest,
each worth its score after the late policy (a penalty, late days spent, or 0). An instructor's
correction (a score set by hand, the submission chosen to count, or the assignment excused:
grader.service.policy.corrections) takes the place of the rules' choice for that student's
assignment. Late days go where they count most: the choice for each assignment is the one of
the plan with the best course total the budget allows (grader.service.policy.late_days), not
the first assignment's in deadline order. A deadline moved later (an extension granted, a
deadline moved in course.toml) applies to what was already submitted (`late_now`).

Read from the store a student (or an assignment) at a
time: nothing here holds the whole class's reports.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, func, select

from grader.service.config import Correction, Course, Rules
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.policy.late_days import Choice, best

_submissions = schema.submissions.c
_results = schema.results.c
_jobs = schema.jobs.c


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
    """An assignment's counted submission for one
    student, and what it is worth after the late policy."""

    assignment: str
    row: Row | None
    factor: float
    score: float | None
    max_score: float | None
    late_days_used: int
    why: str
    #: the instructor excused the student from the
    #: assignment: it counts neither points nor out of any
    excused: bool = False
    #: the instructor's correction it follows, if any
    correction: Correction | None = None


#: the newest job and the newest result of each submission
_NEWEST_JOB = (
    select(_jobs.submission_id, func.max(_jobs.id).label("job"))
    .group_by(_jobs.submission_id)
    .subquery()
)
_NEWEST_RESULT = (
    select(_results.submission_id, func.max(_results.job_id).label("job"))
    .group_by(_results.submission_id)
    .subquery()
)
#: every submission, newest first, as a Row (its columns are Row's fields)
_ROWS = (
    select(
        _submissions.id,
        _submissions.assignment,
        _submissions.filename,
        _submissions.sha256,
        _submissions.received_at,
        _submissions.days_late,
        _submissions.seed_token,
        _results.outcome,
        _results.score,
        _results.max_score,
        _results.public_score,
        _jobs.state,
    )
    .join(_NEWEST_JOB, _NEWEST_JOB.c.submission_id == _submissions.id)
    .join(schema.jobs, _jobs.id == _NEWEST_JOB.c.job)
    .outerjoin(_NEWEST_RESULT, _NEWEST_RESULT.c.submission_id == _submissions.id)
    .outerjoin(schema.results, _results.job_id == _NEWEST_RESULT.c.job)
    .order_by(_submissions.received_at.desc(), _submissions.id.desc())
)


def rows_of(
    db: Connection,
    student: str | None = None,
    assignment: str | None = None,
    submission: int | None = None,
    limit: int | None = None,
) -> list[Row]:
    """Submissions, newest first, each with its newest result and the state of its newest job."""
    query = _ROWS
    if student is not None:
        query = query.where(_submissions.student_id == student)
    if assignment is not None:
        query = query.where(_submissions.assignment == assignment)
    if submission is not None:
        query = query.where(_submissions.id == submission)
    if limit is not None:
        query = query.limit(limit)
    return [Row(**found._mapping) for found in db.execute(query)]


def standing(engine: Engine, course: Course, student: str) -> dict[str, Counted]:
    """Each assignment's counted submission for `student`."""
    with reading(engine) as db:
        rows = rows_of(db, student)
    return count(course, student, rows)


def count(course: Course, student: str, rows: Sequence[Row]) -> dict[str, Counted]:
    """What counts for each of the course's assignments:
    the one function every page, export and the LMS read."""
    return plan(course, student, rows).counted


def worths(course: Course, student: str, rows: Sequence[Row]) -> dict[int, tuple[Counted, bool]]:
    """What each of `student`'s graded submissions is worth under
    its assignment's rules now (with the late days the plan leaves
    to that assignment), and whether it is the one that counts."""
    found = plan(course, student, rows)
    worth = {}
    for rules in course.assignments.values():
        chosen = found.counted[rules.id]
        for row in rows:
            if row.assignment != rules.id or row.score is None:
                continue
            if chosen.row is not None and chosen.row.id == row.id and not chosen.excused:
                worth[row.id] = (chosen, True)
            else:
                worth[row.id] = (_worth(course, student, rules, row, found.left[rules.id]), False)
    return worth


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What counts for each assignment, and the late days the
    plan leaves to each (the budget less what the others spend)."""

    counted: dict[str, Counted]
    left: dict[str, int]


def plan(course: Course, student: str, rows: Sequence[Row]) -> Plan:
    """What counts for each assignment: of the choices the rules (or a correction)
    allow, the ones whose points add up to the most the late-day budget allows."""
    groups = []
    for rules in course.assignments.values():
        groups.append(
            _options(course, student, rules, [row for row in rows if row.assignment == rules.id])
        )
    taken = best(
        [[Choice(c.score or 0.0, c.late_days_used) for c in options] for options in groups],
        course.late_days,
    )
    picked = [options[index] for options, index in zip(groups, taken, strict=True)]
    spent = sum(choice.late_days_used for choice in picked)
    counted, left = {}, {}
    for rules, choice in zip(course.assignments.values(), picked, strict=True):
        left[rules.id] = course.late_days - spent + choice.late_days_used
        counted[rules.id] = _unspent(course, student, rules, choice, left[rules.id])
    return Plan(counted=counted, left=left)


def _options(course: Course, student: str, rules: Rules, rows: Sequence[Row]) -> list[Counted]:
    """What the rules let count for one assignment, the
    preferred first; one choice at least spends no late day."""
    # a grader error is never the student's: such a submission neither counts nor stands in the way
    rows = [row for row in rows if row.outcome != "grader-error"]
    correction = rules.corrections.get(student)
    if correction is not None:
        return _corrected(course, student, rules, rows, correction)
    if not rows:
        return [_nothing(rules, None, "no submission")]
    if rules.counts == "last":
        last = rows[0]  # newest first
        if last.score is None:
            return [_nothing(rules, last, "the last submission is still being graded")]
        return _priced(course, student, rules, last)
    graded = [row for row in rows if row.score is not None]
    if not graded:
        return [_nothing(rules, rows[0], "not graded yet")]
    options = []
    for row in graded:
        options += _priced(course, student, rules, row)
    # best: the highest score after the late policy; on a
    # tie, fewer late days, then the earlier submission
    return sorted(
        options,
        key=lambda c: (
            -(c.score or 0.0),
            c.late_days_used,
            c.row.received_at if c.row else 0.0,
            c.row.id if c.row else 0,
        ),
    )


def _corrected(
    course: Course, student: str, rules: Rules, rows: Sequence[Row], correction: Correction
) -> list[Counted]:
    """The choice an instructor's correction leaves: the assignment excused,
    a score set by hand, or one submission (its late policy still applies)."""
    if correction.kind in ("excused", "score"):
        return [_by_hand(rules, rows, correction)]
    chosen = [row for row in rows if row.id == correction.submission]
    if not chosen:
        why = (
            f"your instructor chose submission {correction.submission}, which is not "
            f"one of yours for {rules.id}"
        )
        return [_nothing(rules, None, why, correction)]
    if chosen[0].score is None:
        why = "the submission your instructor chose is still being graded"
        return [_nothing(rules, chosen[0], why, correction)]
    because = f": {correction.reason}" if correction.reason else ""
    return [
        dataclasses.replace(
            option, why=f"chosen by your instructor{because}; {option.why}", correction=correction
        )
        for option in _priced(course, student, rules, chosen[0])
    ]


def _by_hand(rules: Rules, rows: Sequence[Row], correction: Correction) -> Counted:
    """The assignment excused, or its score set by hand; the best graded submission (else the
    newest) shown beside it."""
    because = f": {correction.reason}" if correction.reason else ""
    graded = sorted(
        (row for row in rows if row.score is not None), key=lambda row: -(row.score or 0.0)
    )
    shown = graded[0] if graded else (rows[0] if rows else None)
    if correction.kind == "excused":
        return Counted(
            assignment=rules.id,
            row=shown,
            factor=0.0,
            score=None,
            max_score=None,
            late_days_used=0,
            why=f"excused by your instructor{because}",
            excused=True,
            correction=correction,
        )
    most = rules.points or (shown.max_score if shown is not None else None)
    return Counted(
        assignment=rules.id,
        row=shown,
        factor=1.0,
        score=correction.score,
        max_score=most,
        late_days_used=0,
        why=f"set by your instructor{because}",
        correction=correction,
    )


def _nothing(
    rules: Rules, row: Row | None, why: str, correction: Correction | None = None
) -> Counted:
    return Counted(
        assignment=rules.id,
        row=row,
        factor=0.0 if row is None else 1.0,
        score=None,
        max_score=None,
        late_days_used=0,
        why=why,
        correction=correction,
    )


def _priced(course: Course, student: str, rules: Rules, row: Row) -> list[Counted]:
    """What one graded submission can count: on time, after a penalty,
    or with the late days it needs (or, where they go elsewhere, 0)."""
    days = late_now(course, rules, student, row)
    if days > 0 and rules.late == "late-days":
        spent = math.ceil(
            days - 1e-9
        )  # a late day is spent whole, whatever the rounding of days late
        return [
            Counted(
                assignment=rules.id,
                row=row,
                factor=1.0,
                score=row.score,
                max_score=row.max_score,
                late_days_used=spent,
                why=_days(spent) + " spent",
            ),
            Counted(
                assignment=rules.id,
                row=row,
                factor=0.0,
                score=0.0,
                max_score=row.max_score,
                late_days_used=0,
                why=f"{span(days)} late, with no late day left for it: counts 0",
            ),
        ]
    return [_worth(course, student, rules, row, 0)]


def _unspent(course: Course, student: str, rules: Rules, choice: Counted, left: int) -> Counted:
    """The counted choice, saying why a late file that
    needed late days counts 0: the days the plan left it."""
    if (
        choice.row is None
        or choice.late_days_used
        or rules.late != "late-days"
        or choice.factor != 0.0
    ):
        return choice
    days = late_now(course, rules, student, choice.row)
    if days <= 0:
        return choice
    return dataclasses.replace(
        choice,
        why=f"{span(days)} late, with {_days(left)} left: counts 0 (your late "
        f"days count more on other assignments, or are spent)",
    )


def _days(count: int) -> str:
    return f"{count} late day{'s' if count != 1 else ''}"


def span(days: float) -> str:
    """A time late in words: whole days, or hours where
    the course counts them (late_rounding = "hour")."""
    if days == int(days):
        return f"{int(days)} day{'s' if days != 1 else ''}"
    hours = round(days * 24)
    return f"{hours} hour{'s' if hours != 1 else ''}"


def factor_of(rules: Rules, days: float, budget: int) -> tuple[float, int, str]:
    """What a submission `days` late keeps of its
    score, the late days it spends, and why, in words."""
    if days <= 0:
        return 1.0, 0, "on time"
    if rules.late == "late-days":
        spent = math.ceil(
            days - 1e-9
        )  # a late day is spent whole, whatever the rounding of days late
        if spent <= budget:
            return 1.0, spent, f"{spent} late day{'s' if spent != 1 else ''} spent"
        return 0.0, 0, f"{span(days)} late, with {budget} late days left: counts 0"
    if rules.late == "none":
        return 0.0, 0, f"{span(days)} late: this assignment takes no late work (counts 0)"
    if rules.max_late_days is not None and days > rules.max_late_days:
        return (
            0.0,
            0,
            f"{span(days)} late, past the {rules.max_late_days:g} days late work is taken: "
            "counts 0",
        )
    factor = max(0.0, 1.0 - rules.penalty_per_day * days)
    return factor, 0, f"{span(days)} late: {round((1 - factor) * 100)}% off"


def late_policy(rules: Rules, days: float, late_days: int) -> str:
    """What the late policy makes of an upload `days`
    late, for its receipt; empty when it is on time."""
    if days <= 0:
        return ""
    if rules.late == "late-days":
        spent = math.ceil(days - 1e-9)
        return (
            f"{span(days)} late: it counts in full if you have {spent} of your late days left (the "
            f"course gives {late_days}; grade submit --status), else it counts 0"
        )
    factor, _, why = factor_of(rules, days, 0)
    said = why if factor == 0.0 else f"{why}: it counts {round(factor * 100)}% of what it earns"
    # under "last", a late upload takes the place of an earlier one on time, whatever it is worth
    return said + (
        "; your last submission is the one that counts, so this one replaces any earlier"
        if rules.counts == "last"
        else ""
    )


def late_rule(rules: Rules) -> str:
    """The assignment's late policy, in words."""
    if rules.deadline is None:
        return "no deadline"
    if rules.late == "none":
        return "late work is stored, and counts 0"
    if rules.late == "late-days":
        return "late work spends your late days; past them it counts 0"
    limit = (
        f", and counts 0 after {rules.max_late_days:g} days"
        if rules.max_late_days is not None
        else ""
    )
    return f"late work loses {round(rules.penalty_per_day * 100)}% of its points a day late{limit}"


def late_now(course: Course, rules: Rules | None, student: str, row: Row) -> float:
    """How late `row` counts: as its receipt said, or less where the deadline in force now
    is later (an extension granted, a deadline moved in course.toml, after the upload). A
    deadline moved earlier applies from then on: what a receipt said on time stays on time."""
    if rules is None:
        return row.days_late
    return min(row.days_late, course.days_late(rules, student, row.received_at))


def _worth(course: Course, student: str, rules: Rules, row: Row, budget: int) -> Counted:
    factor, used, why = factor_of(rules, late_now(course, rules, student, row), budget)
    score = round((row.score or 0.0) * factor, 6)
    return Counted(
        assignment=rules.id,
        row=row,
        factor=factor,
        score=score,
        max_score=row.max_score,
        late_days_used=used,
        why=why,
    )


def report_json(engine: Engine, submission: int) -> str | None:
    """The newest report of a submission, as stored: whole, as graded."""
    with reading(engine) as db:
        return db.execute(
            select(_results.report)
            .where(_results.submission_id == submission)
            .order_by(_results.job_id.desc())
            .limit(1)
        ).scalar_one_or_none()


def owner_of(db: Connection, submission: int) -> str | None:
    """The student whose submission it is; None: no such submission."""
    found = select(_submissions.student_id).where(_submissions.id == submission)
    return db.execute(found).scalar_one_or_none()
