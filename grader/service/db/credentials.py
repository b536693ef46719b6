"""A restore never revives a credential: what the store held of its credentials just before
a restore is applied again over the backup's, and the restore says what that changed.

A backup is a store as it was: tokens revoked since were live in it, tokens issued since were
not, and a student the LMS roster removed since was still linked. Put back as it was, a revoked
token worked again (and so did its sessions), and the token that replaced it stopped. So, read
before the restore and applied after it: each token revoked since stays revoked, each token
issued since is kept (where its student is in the backup), each student's LMS link is as it
was, and every session and login link ends (everyone signs in again: a session is hours long,
and nothing records which of the backup's were ended since). Where the store being replaced was
empty or lost, there is nothing to apply: `grade tokens --again` issues every token anew.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, insert, select, update

from grader.service.db import schema


@dataclass(frozen=True, slots=True)
class Token:
    id: str
    student: str
    digest: str
    created_at: float
    revoked_at: float | None


@dataclass(frozen=True, slots=True)
class Credentials:
    """A store's tokens (by id) and each student's LMS link (student -> lti_user_id)."""

    tokens: dict[str, Token]
    links: dict[str, str]

    @classmethod
    def read(cls, db: Connection) -> Credentials:
        t, st = schema.tokens.c, schema.students.c
        tokens = {
            str(row.id): Token(
                str(row.id),
                str(row.student_id),
                str(row.digest),
                float(row.created_at),
                row.revoked_at,
            )
            for row in db.execute(select(t.id, t.student_id, t.digest, t.created_at, t.revoked_at))
        }
        links = {
            str(row.id): str(row.lti_user_id) for row in db.execute(select(st.id, st.lti_user_id))
        }
        return cls(tokens, links)


def reapply(db: Connection, before: Credentials) -> list[str]:
    """Apply `before` (the replaced store's credentials)
    over the restored store's; what changed, in words."""
    now = Credentials.read(db)
    said = (
        _revoked_again(db, before, now) + _issued_since(db, before, now) + _links(db, before, now)
    )
    sessions = int(db.execute(select(func.count()).select_from(schema.sessions)).scalar_one())
    db.execute(delete(schema.lti_sessions))
    db.execute(delete(schema.sessions))
    if sessions:
        said.append(
            f"ended every session and login link the backup held ({sessions}): everyone signs in "
            "again"
        )
    return said


def _revoked_again(db: Connection, before: Credentials, now: Credentials) -> list[str]:
    t = schema.tokens.c
    revived = []
    for token in now.tokens.values():
        was = before.tokens.get(token.id)
        if token.revoked_at is None and was is not None and was.revoked_at is not None:
            db.execute(
                update(schema.tokens).where(t.id == token.id).values(revoked_at=was.revoked_at)
            )
            revived.append(token.student)
    if not revived:
        return []
    return [f"revoked again: {len(revived)} token(s) revoked since the backup ({_names(revived)})"]


def _issued_since(db: Connection, before: Credentials, now: Credentials) -> list[str]:
    kept, lost = [], []
    for token in before.tokens.values():
        if token.id in now.tokens:
            continue
        if token.student not in now.links:
            lost.append(token.student)
            continue
        db.execute(
            insert(schema.tokens).values(
                id=token.id,
                student_id=token.student,
                digest=token.digest,
                created_at=token.created_at,
                revoked_at=token.revoked_at,
            )
        )
        if token.revoked_at is None:
            kept.append(token.student)
    said = [f"kept: {len(kept)} token(s) issued since the backup ({_names(kept)})"] if kept else []
    if lost:
        said.append(
            f"not kept: the token(s) of {_names(lost)}, whom the backup does not hold (grade "
            "tokens issues them again)"
        )
    return said


def _links(db: Connection, before: Credentials, now: Credentials) -> list[str]:
    st = schema.students.c
    changed = []
    for student, lti in before.links.items():
        if student in now.links and now.links[student] != lti:
            db.execute(update(schema.students).where(st.id == student).values(lti_user_id=lti))
            changed.append(student)
    if not changed:
        return []
    return [f"LMS links as they were before the restore: {_names(changed)}"]


def _names(students: list[str]) -> str:
    unique = sorted(set(students))
    return ", ".join(unique[:10]) + (f", ... ({len(unique)})" if len(unique) > 10 else "")
