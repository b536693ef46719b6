"""Who may submit: one token per student, stored as a digest, checked in
constant time, revocable; and the pages' one-time login links and session
cookies, made from a token so that the token itself never sits in a URL.

A token reads `agt_<id>_<secret>`: the id finds its row, and the secret's SHA-256 is compared with
the one stored by `hmac.compare_digest`. The secret is 256 random bits, so a plain digest is as
good as a slow hash (nobody can try 2^256 guesses), and the store never holds a token that works.

A login link and a session belong to the token that made them: each request by cookie
checks that the token is still live, so revoking or reissuing it (`grade tokens
--revoke`, `--again`, `--instructor`) ends them at once. Only the token makes a login
link (`who.by_session` cannot), and a session lasts SESSION_SECONDS from its login, never
renewed: a leaked cookie is good for a few hours at most, and never for a new credential.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, and_, bindparam, delete, insert, or_, select, update

from grader.outputs.students import Student
from grader.service.db import schema
from grader.service.db.store import reading, writing

_TOKEN = re.compile(r"agt_([0-9a-f]{16})_([A-Za-z0-9_-]{43})")
LOGIN_SECONDS = 300
SESSION_SECONDS = 8 * 3600


@dataclass(frozen=True, slots=True)
class Who:
    """The holder of a valid token or session."""

    student: str
    role: str
    #: the token behind this request: given, or the one that made its session
    token_id: str = ""
    #: it came with a session cookie, not the token itself: it may not make new credentials
    by_session: bool = False
    #: the deployment (grader.service.lti.lti_config.platform_id)
    #: whose launch made its session, if one did
    platform: str = ""

    @property
    def instructor(self) -> bool:
        return self.role == "instructor"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_token() -> tuple[str, str, str]:
    """(token, its id, the digest stored)."""
    ident, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
    return f"agt_{ident}_{secret}", ident, _digest(secret)


def issue(
    engine: Engine,
    people: Sequence[Student],
    *,
    role: str = "student",
    again: bool = False,
) -> list[tuple[Student, str]]:
    """A token for each of `people` that has none (each of
    them, revoking the old, with `again`); the new ones."""
    issued: list[tuple[Student, str]] = []
    now = time.time()
    with writing(engine) as db:
        for person in people:
            _upsert_student(db, person, role)
            live = db.execute(
                select(schema.tokens.c.id).where(
                    schema.tokens.c.student_id == person.id, schema.tokens.c.revoked_at.is_(None)
                )
            ).first()
            if live is not None and not again:
                continue
            _revoke(db, person.id, now)
            db.execute(
                delete(schema.sessions).where(
                    schema.sessions.c.student_id == person.id,  # the old token's
                    schema.sessions.c.kind != "lti",
                )
            )
            token, ident, digest = new_token()
            db.execute(
                insert(schema.tokens).values(
                    id=ident, student_id=person.id, digest=digest, created_at=now
                )
            )
            issued.append((person, token))
    return issued


def revoke(engine: Engine, student: str) -> int:
    """Revoke every token of `student` (and end their sessions); how many were live."""
    with writing(engine) as db:
        count = _revoke(db, student, time.time())
        db.execute(delete(schema.sessions).where(schema.sessions.c.student_id == student))
    return count


def _revoke(db: Connection, student: str, now: float) -> int:
    return db.execute(
        update(schema.tokens)
        .where(schema.tokens.c.student_id == student, schema.tokens.c.revoked_at.is_(None))
        .values(revoked_at=now)
    ).rowcount


def _upsert_student(db: Connection, person: Student, role: str) -> None:
    values = {
        "name": person.name,
        "email": person.email,
        "sis_user_id": person.sis_user_id,
        "sis_login_id": person.sis_login_id,
        "section": person.section,
        "role": role,
        "lti_user_id": person.lti_user_id,
    }
    found = db.execute(
        select(schema.students.c.id).where(schema.students.c.id == person.id)
    ).first()
    if found is None:
        db.execute(insert(schema.students).values(id=person.id, **values))
    else:
        if (
            not person.lti_user_id
        ):  # a CSV without the column keeps the LTI id grade roster sync gave
            del values["lti_user_id"]
        db.execute(
            update(schema.students).where(schema.students.c.id == person.id).values(**values)
        )


#: a token's holder, the statement made once: every request asks it
_HOLDER = (
    select(
        schema.tokens.c.digest,
        schema.tokens.c.revoked_at,
        schema.students.c.id,
        schema.students.c.role,
    )
    .join(schema.students, schema.students.c.id == schema.tokens.c.student_id)
    .where(schema.tokens.c.id == bindparam("ident"))
)


def who_has(engine: Engine, token: str) -> Who | None:
    """The holder of `token`, if it is well formed, known, matches and is not revoked."""
    match = _TOKEN.fullmatch(token.strip())
    if match is None:
        return None
    ident, secret = match.groups()
    with reading(engine) as db:
        row = db.execute(_HOLDER, {"ident": ident}).first()
    # compared whatever was found, so that an unknown id and a wrong secret take the same time
    expected = row.digest if row is not None else "0" * 64
    if (
        not hmac.compare_digest(expected, _digest(secret))
        or row is None
        or row.revoked_at is not None
    ):
        return None
    return Who(student=row.id, role=row.role, token_id=ident)


def login_link(engine: Engine, who: Who) -> str:
    """A one-time code, good for LOGIN_SECONDS, that
    /login/CODE turns into a session cookie of `who`'s token."""
    if who.by_session or not who.token_id:
        raise PermissionError("a login link is made with the token itself, never from a session")
    code = secrets.token_urlsafe(32)
    with writing(engine) as db:
        db.execute(delete(schema.sessions).where(schema.sessions.c.expires_at < time.time()))
        db.execute(
            insert(schema.sessions).values(
                digest=_digest(code),
                student_id=who.student,
                kind="link",
                token_id=who.token_id,
                expires_at=time.time() + LOGIN_SECONDS,
            )
        )
    return code


@dataclass(frozen=True, slots=True)
class Holder:
    """Whom a login link signs in: shown before it is
    spent, so that a link someone else made is not taken."""

    student: str
    name: str
    role: str


def link_holder(engine: Engine, code: str) -> Holder | None:
    """Whom the login code `code` would sign in, without
    spending it; None where use_link would refuse it."""
    s, st, t = schema.sessions.c, schema.students.c, schema.tokens.c
    with reading(engine) as db:
        row = db.execute(
            select(st.id, st.name, st.role)
            .join(schema.sessions, s.student_id == st.id)
            .join(
                schema.tokens,
                and_(t.id == s.token_id, t.student_id == s.student_id, t.revoked_at.is_(None)),
            )
            .where(s.digest == _digest(code), s.kind == "link", s.expires_at >= time.time())
        ).first()
    return None if row is None else Holder(student=row.id, name=row.name, role=row.role)


def use_link(engine: Engine, code: str) -> str | None:
    """Spend a login code: a session id for the cookie, or
    None if it is unknown, used, expired or its token revoked."""
    session = secrets.token_urlsafe(32)
    with writing(engine) as db:
        row = db.execute(
            delete(schema.sessions)
            .where(
                schema.sessions.c.digest == _digest(code),
                schema.sessions.c.kind == "link",
                schema.sessions.c.expires_at >= time.time(),
            )
            .returning(schema.sessions.c.student_id, schema.sessions.c.token_id)
        ).first()
        if row is None or not _live(db, row.token_id, row.student_id):
            return None
        db.execute(
            insert(schema.sessions).values(
                digest=_digest(session),
                student_id=row.student_id,
                kind="session",
                token_id=row.token_id,
                expires_at=time.time() + SESSION_SECONDS,
            )
        )
    return session


def _live(db: Connection, token: str, student: str) -> bool:
    t = schema.tokens.c
    return (
        db.execute(
            select(t.id).where(t.id == token, t.student_id == student, t.revoked_at.is_(None))
        ).first()
        is not None
    )


def lti_session(engine: Engine, student: str, platform: str, subject: str) -> str:
    """A session for a launch grader.service.lti.lti has checked. It ends at
    SESSION_SECONDS at the latest, and at once when its platform's deployment is no
    longer accepted or the student's lti_user_id is no longer `subject` (removed from the
    roster, or the roster says another LTI user): who_is checks both on every request."""
    session, now = secrets.token_urlsafe(32), time.time()
    with writing(engine) as db:
        db.execute(delete(schema.sessions).where(schema.sessions.c.expires_at < now))
        db.execute(
            insert(schema.sessions).values(
                digest=_digest(session),
                student_id=student,
                kind="lti",
                expires_at=now + SESSION_SECONDS,
            )
        )
        db.execute(
            insert(schema.lti_sessions).values(
                digest=_digest(session), platform=platform, subject=subject
            )
        )
    return session


def who_is(engine: Engine, session: str) -> Who | None:
    """The holder of a session cookie, while it lasts and what made it
    stands, checked on every request: the token behind a login link's session
    is live; a launch's platform and the roster's LTI user id still stand."""
    s, st, t, ls, lp = (
        schema.sessions.c,
        schema.students.c,
        schema.tokens.c,
        schema.lti_sessions.c,
        schema.lti_platforms.c,
    )
    with reading(engine) as db:
        row = db.execute(
            select(st.id, st.role, s.token_id, ls.platform)
            .join(schema.sessions, s.student_id == st.id)
            .outerjoin(
                schema.tokens,
                and_(t.id == s.token_id, t.student_id == s.student_id, t.revoked_at.is_(None)),
            )
            .outerjoin(schema.lti_sessions, ls.digest == s.digest)
            .outerjoin(schema.lti_platforms, lp.id == ls.platform)
            .where(
                s.digest == _digest(session),
                s.expires_at >= time.time(),
                or_(
                    and_(s.kind == "session", t.id.is_not(None)),
                    and_(
                        s.kind == "lti",
                        lp.id.is_not(None),
                        st.lti_user_id != "",
                        ls.subject == st.lti_user_id,
                    ),
                ),
            )
        ).first()
    if row is None:
        return None
    return Who(
        student=row.id,
        role=row.role,
        token_id=row.token_id or "",
        by_session=True,
        platform=row.platform or "",
    )
