"""Take in one upload: the course's rules at its time of
arrival, then the submission and its job in one transaction.

An upload's time is when the server had it whole (grader.service.policy.clock), taken before it
waits for the store: the opening, the close, the day's limit and how late it is all read that
one time, however long the writer takes. The receipt is built only from what that transaction
committed (SQLite: the WAL fsynced, for all the uploads waiting at that moment at once,
grader.service.db.group_commit; PostgreSQL: synchronous commit), so a student who holds a
receipt holds a submission that survives a kill -9 of the server. A retried upload (same
student, assignment and idempotency key) gets the first receipt back and is stored once. A late
upload is stored and marked late until the assignment closes (course.toml's `closes`, else the
deadline plus the days late work can still count), and its receipt says what the late policy
makes of it and what it does to what counts ("this replaces your counted 20/20 (on time) with a
late upload that counts 0"); after the close, and before the assignment opens or past the day's
limit, it is refused, with when it can be made (or that it cannot); one while the student
already has `queued_per_student` uploads waiting to be graded is refused with a Retry-After
(the client tries again then, with the same key): one token cannot queue more than the workers
grade. A job's turn is set here (grader.service.work.queue: round-robin by student).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from sqlalchemy import Connection, Engine, bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError

from grader.core.seeds import SubmissionSeed, submission_seed
from grader.service.config import Course, Rules, day_of
from grader.service.db import schema
from grader.service.db.group_commit import writer_for
from grader.service.db.store import is_sqlite, reading, writing
from grader.service.policy import clock
from grader.service.policy.effects import closed, effect
from grader.service.standing import late_policy, rows_of
from grader.service.tokens import Who
from grader.service.uploads import Refused, shown_name
from grader.service.work.queue import next_turns


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
    #: what it does to what counts, in words (grader.service.policy.effects)
    effect: str = ""
    #: the course's zone, which the receipt's times are shown in
    zone: tzinfo = UTC

    def to_json(self) -> dict[str, object]:
        moment = datetime.fromtimestamp(self.received_at, self.zone)
        return {
            "submission": self.submission,
            "sha256": self.sha256,
            "received_at": self.received_at,
            "server_time": moment.isoformat(timespec="milliseconds"),
            "received": f"{moment.strftime('%Y-%m-%d %H:%M:%S')}.{moment.microsecond // 1000:03d} "
            f"{moment.strftime('%Z')}",
            "assignment": self.assignment,
            "days_late": self.days_late,
            "late": self.days_late > 0,
            "left_today": self.left_today,
            "seed_token": self.seed_token,
            "replayed": self.replayed,
            "late_policy": self.late_policy,
            "effect": self.effect,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Upload:
    """One upload as its request brought it: whose, for
    which assignment, its bytes and when it arrived whole."""

    who: Who
    rules: Rules
    content: bytes
    name: str
    suffix: str
    key: str
    #: grader.service.policy.clock.arrived, taken once its
    #: body was whole: its time, whenever the store writes it
    arrived: float


def take(engine: Engine, course: Course, upload: Upload, secret: bytes) -> Receipt | Refused:
    """Store the upload and queue it for grading, or say
    why not; raises SQLAlchemyError if the store fails.

    On SQLite the upload's writes join the others waiting at that
    moment in one transaction (grader.service.group_commit); the
    receipt comes only once that transaction is committed, on disk."""
    digest = hashlib.sha256(upload.content).hexdigest()
    seed = (
        submission_seed(secret, upload.content)
        if course.fixed_seed is None
        else SubmissionSeed(course.fixed_seed, f"seed-{course.fixed_seed}")
    )
    work = functools.partial(_store, course=course, upload=upload, digest=digest, seed=seed)
    try:
        if is_sqlite(engine):
            taken = writer_for(engine).run(work)
        else:
            with writing(engine) as db:
                taken = work(db)
    except (
        IntegrityError
    ):  # the same key, in a request that raced this one: it was stored once, by that one
        with writing(engine) as db:
            again = _earlier(db, upload.who.student, upload.key, upload.rules, course)
        if again is None:
            raise
        taken = again
    if isinstance(taken, Refused):
        return taken
    return dataclasses.replace(taken, effect=_effect(engine, course, upload, taken))


def _effect(engine: Engine, course: Course, upload: Upload, receipt: Receipt) -> str:
    """What the upload does to what counts, from the student's other submissions
    (read after the commit: the writer every upload waits for is not held for it)."""
    deadline = upload.rules.deadline_for(upload.who.student)
    released = deadline is not None and receipt.received_at >= deadline
    rows = []
    if released:
        with reading(engine) as db:
            rows = [row for row in rows_of(db, upload.who.student) if row.id != receipt.submission]
    return effect(course, upload.who.student, upload.rules, rows, receipt.days_late, released)


def _store(
    db: Connection, *, course: Course, upload: Upload, digest: str, seed: SubmissionSeed
) -> Receipt | Refused:
    """The upload's writes, in the transaction `db`
    has open: its receipt holds once that commits."""
    who, rules, key = upload.who, upload.rules, upload.key
    if not is_sqlite(
        db.engine
    ):  # one upload of a student at a time, for an exact day's count (on SQLite: the writer)
        db.execute(
            select(schema.students.c.id)
            .where(schema.students.c.id == who.student)
            .with_for_update()
        )
    earlier = _earlier(db, who.student, key, rules, course)
    if earlier is not None:
        return (
            earlier
            if earlier.sha256 == digest
            else Refused(
                409,
                "this idempotency key was used for another file: the client makes a new key per upload",
            )
        )
    now = upload.arrived
    if rules.opens is not None and now < rules.opens and not who.instructor:
        return Refused(
            403, f"{rules.id} opens at {clock.shown(rules.opens, course)}: submissions open then."
        )
    closes = course.closes_for(rules, who.student)
    if closes is not None and now > closes and not who.instructor:
        return Refused(403, closed(course, rules, who.student, closes))
    limited = bool(rules.per_day) and not who.instructor
    used = _used_today(db, who.student, rules.id, now, course) if limited else 0
    if limited and used >= rules.per_day:
        _, tomorrow = day_of(now, course.timezone)
        return Refused(
            429,
            f"you have made {used} submissions of {rules.id} today, this course's daily "
            f"limit; the next can be made from {clock.shown(tomorrow, course)} (in "
            f"{_span(tomorrow - now)}). Test with `grade FILE` first: it is not limited.",
        )
    waiting = _waiting(db, who.student) if course.queued_per_student and not who.instructor else 0
    if waiting >= course.queued_per_student > 0:
        return Refused(
            429,
            f"you have {waiting} submissions waiting to be graded, the most this course queues for "
            f"one student; this one was NOT stored. grade submit tries again by itself; else submit "
            f"again once one is graded (grade submit --status shows them).",
            retry_after=RETRY_QUEUED,
        )
    late = course.days_late(rules, who.student, now)
    row = db.execute(
        _NEW_SUBMISSION,
        {
            "student_id": who.student,
            "assignment": rules.id,
            "idempotency_key": key,
            "sha256": digest,
            "filename": shown_name(upload.name),
            "suffix": upload.suffix,
            "content": upload.content,
            "received_at": now,
            "days_late": late,
            "seed": seed.seed,
            "seed_token": seed.token,
        },
    ).one()
    # queued_at is the writer's now: the queue's wait is
    # measured from when the job could first be claimed
    db.execute(
        _NEW_JOB,
        {
            "submission_id": row.id,
            "priority": 0,
            "state": "queued",
            "attempts": 0,
            "queued_at": time.time(),
            "turn": next_turns(db, {who.student}, 0)[who.student],
        },
    )
    left = max(rules.per_day - used - 1, 0) if limited else None
    return Receipt(
        submission=row.id,
        sha256=digest,
        received_at=now,
        assignment=rules.id,
        days_late=late,
        left_today=left,
        seed_token=seed.token,
        late_policy=late_policy(rules, late, course.late_days),
        zone=course.timezone,
    )


#: how long a student whose uploads fill their share
#: of the queue is asked to wait (about a job's time)
RETRY_QUEUED = 10

#: the statements of an upload, made once: a burst's
#: uploads run them one after another in one writer
_NEW_SUBMISSION = insert(schema.submissions).returning(schema.submissions.c.id)
_NEW_JOB = insert(schema.jobs)
_S = schema.submissions.c
_EARLIER = select(
    _S.id, _S.sha256, _S.received_at, _S.assignment, _S.days_late, _S.seed_token
).where(
    _S.student_id == bindparam("student"),
    _S.assignment == bindparam("assignment"),
    _S.idempotency_key == bindparam("key"),
)


#: counted from the student's own submissions, each with its upload's job (priority
#: 0). `state || ''` keeps SQLite's planner off the queue's index (state, priority,
#: ...), which it took over the student's index: every upload then walked the class's
#: whole queue, in the one writer every upload of a burst waits for (SQLite's own
#: idiom for steering its planner; PostgreSQL reads it as the same comparison)
_WAITING = (
    select(func.count())
    .select_from(schema.submissions)
    .join(schema.jobs, schema.jobs.c.submission_id == _S.id)
    .where(
        _S.student_id == bindparam("student"),
        (schema.jobs.c.state + "") == "queued",
        schema.jobs.c.priority == 0,
    )
)


def _earlier(
    db: Connection, student: str, key: str, rules: Rules, course: Course
) -> Receipt | None:
    """The receipt of the upload this one retries, if any: its late policy
    said again (the first answer may never have reached the student)."""
    row = db.execute(_EARLIER, {"student": student, "assignment": rules.id, "key": key}).first()
    if row is None:
        return None
    return Receipt(
        submission=row.id,
        sha256=row.sha256,
        received_at=row.received_at,
        assignment=row.assignment,
        days_late=row.days_late,
        left_today=None,
        seed_token=row.seed_token,
        replayed=True,
        late_policy=late_policy(rules, row.days_late, course.late_days),
        zone=course.timezone,
    )


def _used_today(db: Connection, student: str, assignment: str, now: float, course: Course) -> int:
    start, end = day_of(now, course.timezone)
    s = schema.submissions.c
    return int(
        db.execute(
            select(func.count()).where(
                s.student_id == student,
                s.assignment == assignment,
                s.received_at >= start,
                s.received_at < end,
            )
        ).scalar_one()
    )


def _waiting(db: Connection, student: str) -> int:
    """The student's uploads queued and not yet being
    graded (an instructor's regrades of them not counted)."""
    return int(db.execute(_WAITING, {"student": student}).scalar_one())


def used_today(engine: Engine, student: str, assignment: str, course: Course) -> int:
    from grader.service.db.store import reading

    with reading(engine) as db:
        return _used_today(db, student, assignment, time.time(), course)


def _span(seconds: float) -> str:
    minutes = max(int(seconds // 60), 1)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
