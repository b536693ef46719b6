"""The audit log: every change made from the instructor's pages (a deadline, an extension, a
regrade, a publish, a correction of what counts, a confirmation), who made it, when, and the
value before and after. Written in the transaction of the change it records; nothing removes it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, insert, select

from grader.service.db import schema
from grader.service.db.store import reading

#: the audit log's actions (grader.service.policy.corrections adds its own: score, choose, excuse,
#: clear); a server holding a course.toml edit until it is confirmed records it as held
DEADLINE, EXTENSION, REGRADE, PUBLISH, CONFIRM, HELD = (
    "deadline",
    "extension",
    "regrade",
    "publish",
    "confirm",
    "held",
)
_audit = schema.audit_log.c


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One line of the audit log."""

    id: int
    at: float
    actor: str
    action: str
    assignment: str
    student: str
    old: str
    new: str


def record(
    db: Connection,
    actor: str,
    action: str,
    assignment: str = "",
    student: str = "",
    old: str = "",
    new: str = "",
) -> Entry:
    """Write one line of the audit log, in the caller's transaction."""
    at = time.time()
    ident = db.execute(
        insert(schema.audit_log)
        .values(
            at=at,
            actor=actor,
            action=action,
            assignment=assignment,
            student=student,
            old=old,
            new=new,
        )
        .returning(_audit.id)
    ).scalar_one()
    return Entry(
        id=ident,
        at=at,
        actor=actor,
        action=action,
        assignment=assignment,
        student=student,
        old=old,
        new=new,
    )


def audit(engine: Engine, limit: int = 200) -> list[Entry]:
    """The audit log, newest first."""
    with reading(engine) as db:
        return [
            Entry(
                id=r.id,
                at=r.at,
                actor=r.actor,
                action=r.action,
                assignment=r.assignment,
                student=r.student,
                old=r.old,
                new=r.new,
            )
            for r in db.execute(select(schema.audit_log).order_by(_audit.id.desc()).limit(limit))
        ]
