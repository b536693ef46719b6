"""Deadlines and extensions set from the instructor's pages: kept in the store over
course.toml's, read again by every server before each request it answers and by `grade
gradebook` (so every process of the course agrees at once), and each change written to
the audit log in the same transaction (who, what, when, old and new value).

course.toml stays the starting point: a row here overrides one value (an assignment's deadline,
or one student's), and removing the row gives course.toml's value back. A row's moment None
means "none": no deadline for the class, or no extension for the student (one course.toml grants
is withdrawn). When the class deadline is moved here, course.toml's extensions move with it
(they are extra time over the class's); an extension set on the page is a date and stays as set.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, func, insert, select
from sqlalchemy.exc import SQLAlchemyError

from grader.service.config import Correction, Course
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.policy import clock
from grader.service.policy.audit import DEADLINE, EXTENSION, PUBLISH, REGRADE, Entry, audit, record
from grader.service.policy.corrections import read as read_corrections

__all__ = [
    "DEADLINE",
    "EXTENSION",
    "PUBLISH",
    "REGRADE",
    "Entry",
    "audit",
    "record",
]  # their home before

_rule_overrides = schema.rule_overrides.c
_audit = schema.audit_log.c


@dataclass(frozen=True, slots=True, kw_only=True)
class Override:
    assignment: str
    #: "" for the class's deadline, else the student's
    student: str
    #: epoch seconds; None: no deadline (no extension)
    moment: float | None
    set_by: str
    set_at: float


def overrides(engine: Engine) -> list[Override]:
    with reading(engine) as db:
        return _overrides(db)


def _overrides(db: Connection) -> list[Override]:
    return [
        Override(
            assignment=r.assignment,
            student=r.student,
            moment=r.moment,
            set_by=r.set_by,
            set_at=r.set_at,
        )
        for r in db.execute(
            select(
                _rule_overrides.assignment,
                _rule_overrides.student,
                _rule_overrides.moment,
                _rule_overrides.set_by,
                _rule_overrides.set_at,
            ).order_by(_rule_overrides.assignment, _rule_overrides.student)
        )
    ]


def in_force(
    course: Course, found: list[Override], fixes: Mapping[tuple[str, str], Correction] | None = None
) -> Course:
    """`course` (as course.toml says) with the store's overrides and corrections applied
    (grader.service.corrections); one of an assignment course.toml no longer has is ignored."""
    if not found and not fixes:
        return course
    assignments = dict(course.assignments)
    for rules in course.assignments.values():
        mine = [x for x in found if x.assignment == rules.id]
        corrected = {s: fix for (a, s), fix in (fixes or {}).items() if a == rules.id}
        if not mine and not corrected:
            continue
        deadline, extensions = rules.deadline, dict(rules.extensions)
        for x in mine:
            if x.student == "":
                if (
                    rules.deadline is not None and x.moment is not None
                ):  # course.toml's extra time moves with it
                    extensions = {s: m + (x.moment - rules.deadline) for s, m in extensions.items()}
                deadline = x.moment
        for x in mine:
            if x.student != "":
                if x.moment is None:
                    extensions.pop(x.student, None)
                else:
                    extensions[x.student] = x.moment
        assignments[rules.id] = dataclasses.replace(
            rules, deadline=deadline, extensions=extensions, corrections=corrected
        )
    return dataclasses.replace(course, assignments=assignments)


def stored_course(engine: Engine, course: Course) -> Course:
    """`course` with what the pages set in the store
    over it, read now: what `grade gradebook` counts by."""
    with reading(engine) as db:
        return in_force(course, _overrides(db), read_corrections(db))


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One change asked from the deadlines page."""

    assignment: str
    #: "" for the class's deadline, else the student's
    student: str
    #: the new moment; None: no deadline (no extension)
    moment: float | None
    #: give the value back to course.toml instead
    reset: bool = False


def proposed(found: list[Override], change: Change) -> list[Override]:
    """The overrides as they would be after `change` is saved
    (nothing written): what a page weighs before it asks."""
    where = (change.assignment, change.student)
    kept = [x for x in found if (x.assignment, x.student) != where]
    if change.reset:
        return kept
    made = Override(
        assignment=change.assignment,
        student=change.student,
        moment=change.moment,
        set_by="",
        set_at=0.0,
    )
    return [*kept, made]


#: the longest a process holds the rules it last read before it asks the store again: a deadline
#: another process sets reaches this one's requests within it (asking before every request was a
#: query and a thread's turn each, a fifth of the server's CPU in a burst of uploads)
REFRESH_EVERY = 0.1


class StoredRules:
    """The store's overrides and corrections as one process last read them: `refresh`
    reads them again when the audit log has grown (one indexed query: the max of its
    key; every change to either is audited), the server before a request once
    REFRESH_EVERY has passed, in a thread; `apply` lays them over a course.toml's
    course without touching the store, so the event loop never waits on it."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._revision = -1
        self._found: list[Override] = []
        self._fixes: dict[tuple[str, str], Correction] = {}
        self._base: Course | None = None
        self._course: Course | None = None
        self._asked = float("-inf")

    def due(self) -> bool:
        """Whether the store is to be asked again before this request."""
        return time.monotonic() - self._asked >= REFRESH_EVERY

    def forget(self) -> None:
        """Ask the store before the next request (this process has just changed a deadline)."""
        self._asked = float("-inf")

    def refresh(self) -> None:
        self._asked = time.monotonic()
        try:
            with reading(self._engine) as db:
                revision = int(
                    db.execute(select(func.coalesce(func.max(_audit.id), 0))).scalar_one()
                )
                if revision == self._revision:
                    return
                found, fixes = _overrides(db), read_corrections(db)
        except (
            SQLAlchemyError
        ):  # the store is unreachable: the rules last read stand; writes fail loudly anyway
            return
        with self._lock:
            self._revision, self._found, self._fixes, self._course = revision, found, fixes, None

    def apply(self, course: Course) -> Course:
        with self._lock:
            if self._course is None or course is not self._base:
                self._base, self._course = course, in_force(course, self._found, self._fixes)
            return self._course


def save(engine: Engine, toml: Course, actor: str, change: Change, note: str = "") -> Entry:
    """Set (or, with `reset`, give back to course.toml) the class's
    deadline (student "") or one student's; the audit log's entry for
    it. The old value is the one in force, read in the same transaction."""
    assignment, student = change.assignment, change.student
    with writing(engine) as db:
        before = in_force(toml, _overrides(db)).assignments[assignment]
        old = before.deadline if student == "" else before.extensions.get(student)
        keyed = (_rule_overrides.assignment == assignment, _rule_overrides.student == student)
        db.execute(delete(schema.rule_overrides).where(*keyed))
        if not change.reset:
            db.execute(
                insert(schema.rule_overrides).values(
                    assignment=assignment,
                    student=student,
                    moment=change.moment,
                    set_by=actor,
                    set_at=time.time(),
                )
            )
        after = in_force(toml, _overrides(db)).assignments[assignment]
        new = after.deadline if student == "" else after.extensions.get(student)
        action = DEADLINE if student == "" else EXTENSION
        note = (" (course.toml's again)" if change.reset else "") + note
        old_said, new_said = clock.logged(old, toml), clock.logged(new, toml) + note
        return record(db, actor, action, assignment, student, old_said, new_said)
