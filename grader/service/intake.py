"""Take in one upload: the course's rules at its receipt time, then the submission and its job in one transaction.

The receipt is built only from what that transaction committed (SQLite: the WAL fsynced; PostgreSQL:
synchronous commit), so a student who holds a receipt holds a submission that survives a kill -9 of the
server. A retried upload (same student, assignment and idempotency key) gets the first receipt back and is stored
once. A late upload is stored and marked late, never refused, and its receipt says what the late policy makes
of it (without one, it counts 0); one before the assignment opens or past the day's limit is refused, with
the time it can be made.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, func, insert, select
from sqlalchemy.exc import IntegrityError

from grader.core.seeds import SubmissionSeed, submission_seed
from grader.service import schema
from grader.service.config import Course, Rules, day_of
from grader.service.standing import late_policy
from grader.service.store import writing
from grader.service.tokens import Who
from grader.service.uploads import Refused, shown_name


@dataclass(frozen=True, slots=True, kw_only=True)
class Receipt:
    submission: int
    sha256: str
    received_at: float
    assignment: str
    days_late: float
    #: submissions this student may still make today for this assignment (None: no limit)
    left_today: int | None
    #: the seed's token, which the report shows in the seed's place
    seed_token: str
    #: this upload was a retry of one already stored
    replayed: bool = False
    #: for a late upload: what the assignment's late policy makes of it, in words
    late_policy: str = ""

    def to_json(self) -> dict[str, object]:
        return {"submission": self.submission, "sha256": self.sha256, "received_at": self.received_at,
                "server_time": datetime.fromtimestamp(self.received_at, UTC).isoformat(timespec="milliseconds"),
                "assignment": self.assignment, "days_late": self.days_late, "late": self.days_late > 0,
                "left_today": self.left_today, "seed_token": self.seed_token, "replayed": self.replayed,
                "late_policy": self.late_policy}


def take(engine: Engine, course: Course, who: Who, rules: Rules, content: bytes, name: str, suffix: str, key: str,
         secret: bytes) -> Receipt | Refused:
    """Store the upload and queue it for grading, or say why not; raises SQLAlchemyError if the store fails."""
    digest = hashlib.sha256(content).hexdigest()
    seed = submission_seed(secret, content) if course.fixed_seed is None else \
        SubmissionSeed(course.fixed_seed, f"seed-{course.fixed_seed}")
    try:
        with writing(engine) as db:
            # one upload of a student at a time (PostgreSQL): the day's count is then exact
            db.execute(select(schema.students.c.id).where(schema.students.c.id == who.student).with_for_update())
            earlier = _earlier(db, who.student, key, rules, course)
            if earlier is not None:
                return earlier if earlier.sha256 == digest else Refused(
                    409, "this idempotency key was used for another file: the client makes a new key per upload")
            now = time.time()
            if rules.opens is not None and now < rules.opens and not who.instructor:
                return Refused(403, f"{rules.id} opens at {_when(rules.opens, course)}: submissions open then.")
            used = _used_today(db, who.student, rules.id, now, course)
            if rules.per_day and used >= rules.per_day and not who.instructor:
                _, tomorrow = day_of(now, course.timezone)
                return Refused(429, f"you have made {used} submissions of {rules.id} today, this course's daily "
                                    f"limit; the next can be made from {_when(tomorrow, course)} (in "
                                    f"{_span(tomorrow - now)}). Test with `grade FILE` first: it is not limited.")
            late = course.days_late(rules, who.student, now)
            row = db.execute(insert(schema.submissions).values(
                student_id=who.student, assignment=rules.id, idempotency_key=key, sha256=digest,
                filename=shown_name(name), suffix=suffix, content=content, received_at=now, days_late=late,
                seed=seed.seed, seed_token=seed.token).returning(schema.submissions.c.id)).one()
            db.execute(insert(schema.jobs).values(submission_id=row.id, priority=0, state="queued", attempts=0,
                                                  queued_at=now))
    except IntegrityError:  # the same key, in a request that raced this one: it was stored once, by that one
        with writing(engine) as db:
            again = _earlier(db, who.student, key, rules, course)
        if again is None:
            raise
        return again
    left = None if not rules.per_day or who.instructor else max(rules.per_day - used - 1, 0)
    return Receipt(submission=row.id, sha256=digest, received_at=now, assignment=rules.id, days_late=late,
                   left_today=left, seed_token=seed.token, late_policy=late_policy(rules, late, course.late_days))


def _earlier(db: Connection, student: str, key: str, rules: Rules, course: Course) -> Receipt | None:
    """The receipt of the upload this one retries, if any: its late policy said again (the first answer may never
    have reached the student)."""
    s = schema.submissions.c
    row = db.execute(select(s.id, s.sha256, s.received_at, s.assignment, s.days_late, s.seed_token)
                     .where(s.student_id == student, s.assignment == rules.id, s.idempotency_key == key)).first()
    if row is None:
        return None
    return Receipt(submission=row.id, sha256=row.sha256, received_at=row.received_at, assignment=row.assignment,
                   days_late=row.days_late, left_today=None, seed_token=row.seed_token, replayed=True,
                   late_policy=late_policy(rules, row.days_late, course.late_days))


def _used_today(db: Connection, student: str, assignment: str, now: float, course: Course) -> int:
    start, end = day_of(now, course.timezone)
    s = schema.submissions.c
    return int(db.execute(select(func.count()).where(s.student_id == student, s.assignment == assignment,
                                                     s.received_at >= start, s.received_at < end)).scalar_one())


def used_today(engine: Engine, student: str, assignment: str, course: Course) -> int:
    from grader.service.store import reading

    with reading(engine) as db:
        return _used_today(db, student, assignment, time.time(), course)


def _when(moment: float, course: Course) -> str:
    return datetime.fromtimestamp(moment, course.timezone).strftime("%Y-%m-%d %H:%M %Z")


def _span(seconds: float) -> str:
    minutes = max(int(seconds // 60), 1)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
