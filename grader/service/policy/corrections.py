"""An instructor's corrections of what counts, set from the pages for one student's assignment: a
score set by hand (with the reason, which the student reads), the submission chosen to count (its
late policy still applies), or the assignment excused (it counts neither points nor out of any). One
correction per student and assignment at a time; clearing it gives what counts back to the rules.

Kept in the store (`corrections`), each change written to the audit log in the same
transaction (who, when, the old and the new), and laid over course.toml's rules with
the pages' deadlines (grader.service.deadlines.in_force): what counts
(grader.service.standing) then follows it everywhere, the student's pages and `grade
submit --status`, the class table, the gradebook and what is sent to the LMS.
"""

from __future__ import annotations

import math
import time

from sqlalchemy import Connection, Engine, delete, insert, select

from grader.core.compare import fmt_points
from grader.core.errors import GraderError
from grader.service.config import Correction, Course, Fix, Rules
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.policy.audit import Entry, record

#: the audit log's action for each kind of correction, and for giving what counts back to the rules
ACTIONS = {"score": "score", "submission": "choose", "excused": "excuse"}
CLEAR = "clear"
#: the longest reason kept (a sentence or two; the page's field says so)
MAX_REASON = 500
_corrections = schema.corrections.c


def read(db: Connection) -> dict[tuple[str, str], Correction]:
    """Every correction in the store, by (assignment, student)."""
    found = {}
    for row in db.execute(select(schema.corrections)):
        kind: Fix = (
            "score"
            if row.kind == "score"
            else "submission"
            if row.kind == "submission"
            else "excused"
        )
        found[(row.assignment, row.student)] = (
            Correction(  # a kind this grader does not know: excused, fail closed
                kind=kind,
                score=row.score,
                submission=row.submission,
                reason=row.reason,
                set_by=row.set_by,
                set_at=row.set_at,
            )
        )
    return found


def corrections(engine: Engine) -> dict[tuple[str, str], Correction]:
    with reading(engine) as db:
        return read(db)


def described(fix: Correction | None, rules: Rules) -> str:
    """A correction in words, as the audit log and the pages show it."""
    if fix is None:
        return "none (the rules decide)"
    because = f": {fix.reason}" if fix.reason else ""
    if fix.kind == "score":
        return f"score {fmt_points(fix.score or 0.0)}/{fmt_points(rules.points)}{because}"
    if fix.kind == "submission":
        return f"submission {fix.submission} counts{because}"
    return f"excused{because}"


def checked(rules: Rules, kind: str, score: str, submission: str, reason: str) -> Correction | str:
    """The correction a form asks for, or what is wrong
    with it (the submission's owner is checked on writing)."""
    reason = " ".join(reason.split())[:MAX_REASON]
    if kind == "score":
        try:
            points = float(score)
        except ValueError:
            return f"{score[:20]!r} is not a number of points."
        if not math.isfinite(points) or not 0 <= points <= rules.points:
            return f"A score of {rules.id} is 0 to {fmt_points(rules.points)} points."
        if not reason:
            return "Say why the score is set by hand: the student reads it."
        return Correction(kind="score", score=round(points, 6), reason=reason)
    if kind == "submission":
        if not submission.isdigit():
            return "Choose the submission that counts."
        return Correction(kind="submission", submission=int(submission), reason=reason)
    if kind == "excused":
        if not reason:
            return "Say why the assignment is excused: the student reads it."
        return Correction(kind="excused", reason=reason)
    return "Choose a correction: set a score, choose the submission that counts, or excuse."


def correct(
    engine: Engine,
    course: Course,
    actor: str,
    assignment: str,
    student: str,
    fix: Correction | None,
) -> Entry:
    """Set (or, with None, clear) the correction of `student`'s
    `assignment`; the audit log's entry for it. Raises GraderError where
    the submission chosen is not that student's for that assignment."""
    rules = course.assignments[assignment]
    with writing(engine) as db:
        if fix is not None and fix.kind == "submission":
            s = schema.submissions.c
            owned = db.execute(
                select(s.id).where(
                    s.id == fix.submission, s.student_id == student, s.assignment == assignment
                )
            ).first()
            if owned is None:
                raise GraderError(
                    f"Submission {fix.submission} is not one of {student}'s for {assignment}."
                )
        keyed = (_corrections.assignment == assignment, _corrections.student == student)
        before = read(db).get((assignment, student))
        db.execute(delete(schema.corrections).where(*keyed))
        if fix is not None:
            db.execute(
                insert(schema.corrections).values(
                    assignment=assignment,
                    student=student,
                    kind=fix.kind,
                    score=fix.score,
                    submission=fix.submission,
                    reason=fix.reason,
                    set_by=actor,
                    set_at=time.time(),
                )
            )
        action = CLEAR if fix is None else ACTIONS[fix.kind]
        return record(
            db, actor, action, assignment, student, described(before, rules), described(fix, rules)
        )
