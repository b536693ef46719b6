"""An edit of course.toml that would release hidden results at once waits for an instructor's word.

A deadline moved into the past in course.toml (a typo: 12-04 for 12-14), or an extension
cut back to a moment gone by, would show every student it touches their hidden checks'
results the moment the server reads the file. So the server holds such an edit
(grader.service.live_course): the rules in force stay, its log and the instructor's pages say
what the edit releases to how many students, and a button there confirms it. The
confirmation is a line of the audit log naming the edit by its SHA-256, so every server of
the course applies it at its next look, and a later, different edit is asked about again.
The hold is a line of the log too: `grade gradebook`, which reads course.toml from the disk
and not from a server, refuses to count by an edit a server holds (`held_edit`).

Whether an edit moves a deadline into the past is judged at the moment it was made (the file's
modification time), not when a server process happens to read it: each process of a server
reads course.toml at its own next request, and a deadline a few seconds ahead when saved must
not apply in one process and be held in another that read it after the deadline passed.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable

from sqlalchemy import Engine, select
from sqlalchemy.exc import SQLAlchemyError

from grader.service.config import CONFIG, Course
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.policy.audit import CONFIRM, HELD, Entry, record
from grader.service.policy.release import in_words, newly_released


def digest(source: bytes) -> str:
    """How a confirmation names the edit it is for: course.toml's bytes as they are."""
    return hashlib.sha256(source).hexdigest()


def students(engine: Engine) -> list[str]:
    st = schema.students.c
    with reading(engine) as db:
        return [row.id for row in db.execute(select(st.id).where(st.role == "student"))]


def confirmed(engine: Engine, edit: str) -> bool:
    log = schema.audit_log.c
    found = select(log.id).where(log.action == CONFIRM, log.new == edit).limit(1)
    with reading(engine) as db:
        return db.execute(found).first() is not None


def hold(
    engine: Engine, in_force: Callable[[Course], Course]
) -> Callable[[Course, Course, bytes], str | None]:
    """LiveCourse's `hold`: why an edit must wait (what it would release,
    and where to confirm it), or None. `in_force` lays the store's
    deadlines over a course.toml's (what counts is the rules in force)."""

    def why(before: Course, after: Course, source: bytes) -> str | None:
        try:
            released = newly_released(
                in_force(before), in_force(after), students(engine), now=_edited(after)
            )
            if not released or confirmed(engine, digest(source)):
                return None
            _record_hold(engine, digest(source), in_words(released))
        except (
            SQLAlchemyError
        ) as exc:  # fail closed: an edit that may release waits until the store answers
            return (
                f"{after.folder / CONFIG}: read again, but the store could not say what it "
                f"releases ({type(exc).__name__}); the server keeps the rules it had and asks "
                "again."
            )
        return (
            f"{after.folder / CONFIG}: this edit moves a deadline into the past, which releases "
            f"the hidden checks' results now: {in_words(released)}. Nothing of it applies until an "
            "instructor confirms it on /instructor/deadlines (or fix the date in course.toml)."
        )

    return why


def _record_hold(engine: Engine, edit: str, released: str) -> None:
    """The hold in the audit log, once per edit (every process of a server looks at the file)."""
    log = schema.audit_log.c
    with writing(engine) as db:
        found = select(log.id).where(log.action == HELD, log.new == edit).limit(1)
        if db.execute(found).first() is None:
            record(db, "grade serve", HELD, "", "", released, edit)


def held_edit(engine: Engine, source: bytes) -> str | None:
    """What course.toml as `source` would release, where a server holds it unconfirmed, or None."""
    edit = digest(source)
    log = schema.audit_log.c
    found = select(log.old).where(log.action == HELD, log.new == edit).limit(1)
    with reading(engine) as db:
        held = db.execute(found).scalar()
    if held is None or confirmed(engine, edit):
        return None
    return str(held)


def _edited(course: Course) -> float:
    """When course.toml was saved: the moment its edit is judged at."""
    try:
        return os.stat(course.folder / CONFIG).st_mtime
    except OSError:
        return time.time()


def confirm(engine: Engine, actor: str, source: bytes, what: str) -> Entry:
    """An instructor's word that the held edit applies (every server reads it at its next look)."""
    with writing(engine) as db:
        return record(db, actor, CONFIRM, "", "", what, digest(source))
