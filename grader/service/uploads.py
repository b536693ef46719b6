"""An upload, from either door to its receipt: `grade submit` (POST /api/submissions) and the
student's page both call `accept`, and get the same checks, refusals and receipt.

What an upload must be: a size-capped UTF-8 Python file, or a notebook that is JSON (a library
course's, a zip of the course's files of a repository); each other shape is refused with a
message that says what it is and what to do. Every check is linear in the upload and bounded by
the cap.

An upload's time is when the server had it whole (grader.service.policy.clock), taken before it
waits for the store: the opening, the close, the day's limit and how late it is all read that
one time, however long the writer takes. The submission and its job are written in one
transaction, and the receipt is built only from what that transaction committed (SQLite: the
WAL fsynced, for all the uploads waiting at that moment at once, grader.service.db.group_commit;
PostgreSQL: synchronous commit), so a student who holds a receipt holds a submission that
survives a kill -9 of the server.

A retried upload (same student, assignment and idempotency key) gets the first receipt back and
is stored once. A late upload is stored and marked late until the assignment closes
(course.toml's `closes`, else the deadline plus the days late work can still count), and its
receipt says what the late policy makes of it and what it does to what counts ("this replaces
your counted 20/20 (on time) with a late upload that counts 0"). After the close, before the
assignment opens, or past the day's limit, an upload is refused, with when it can be made (or
that it cannot). One made while the student already has `queued_per_student` uploads waiting to
be graded is refused with a Retry-After (the client tries again then, with the same key): one
token cannot queue more than the workers grade. A job's turn is set here
(grader.service.work.queue: round-robin by student).

Every refusal is raised as `Refused`, and answered once, by the route the upload came through.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from grader.core.errors import GraderError
from grader.core.seeds import SubmissionSeed, submission_seed
from grader.service.config import Course, Rules, day_of
from grader.service.db import schema
from grader.service.db.group_commit import writer_for
from grader.service.db.store import is_sqlite, reading, write_failure, writing
from grader.service.policy import clock
from grader.service.policy.effects import closed, effect
from grader.service.standing import late_policy, rows_of
from grader.service.tokens import Who
from grader.service.work.queue import next_turns

if TYPE_CHECKING:
    from grader.core.library import Library
    from grader.service.state import State

SUFFIXES = (".py", ".ipynb")
#: the longest idempotency key a client may send
MAX_KEY = 100
#: how long a student whose uploads fill their share of the queue is asked to wait (about a
#: job's time)
RETRY_QUEUED = 10
_NAME = re.compile(r"[^A-Za-z0-9._ -]")
#: the first bytes of files students upload by mistake, and what they are
_MAGIC = (
    (b"PK\x03\x04", "a zip archive"),
    (b"%PDF", "a PDF"),
    (b"\x7fELF", "a program"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\xd0\xcf\x11\xe0", "an Office document"),
)
_CODE_ONLY = "Submit only your code (a .py file or the notebook), not data or outputs."
_SOURCE = "submit your .py file or your .ipynb notebook."


class Refused(Exception):
    """An upload that is not stored, and why, in words for the student."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        #: seconds after which the same upload may succeed (a 429's Retry-After); None: not a
        #: matter of waiting
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        """The answer's headers: when to try again, where waiting helps."""
        if not self.retry_after:
            return {}
        return {"Retry-After": str(self.retry_after)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Upload:
    """One upload as its request brought it."""

    who: Who
    content: bytes
    #: the file's name, as the student's machine called it
    name: str
    #: grader.service.policy.clock.arrived, taken once its body was whole: its time, whenever
    #: the store writes it
    arrived: float
    #: the assignment the request names; None: the one `exercise` belongs to
    assignment: str | None = None
    #: the exercise the file's header declares (`grade submit` reads it)
    exercise: str | None = None
    #: the client's idempotency key; empty: the server makes one
    key: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class NewSubmission:
    """An upload that passed its checks: what is stored, under which assignment's rules."""

    who: Who
    rules: Rules
    content: bytes
    name: str
    #: what it is stored as: .py, .ipynb, or a library course's .zip
    suffix: str
    key: str
    arrived: float


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
        millis = f"{moment.microsecond // 1000:03d}"
        return {
            "submission": self.submission,
            "sha256": self.sha256,
            "received_at": self.received_at,
            "server_time": moment.isoformat(timespec="milliseconds"),
            "received": f"{moment.strftime('%Y-%m-%d %H:%M:%S')}.{millis} {moment.strftime('%Z')}",
            "assignment": self.assignment,
            "days_late": self.days_late,
            "late": self.days_late > 0,
            "left_today": self.left_today,
            "seed_token": self.seed_token,
            "replayed": self.replayed,
            "late_policy": self.late_policy,
            "effect": self.effect,
        }


async def accept(state: State, upload: Upload) -> Receipt:
    """Store `upload` for the assignment it names (or the one its exercise belongs to), and
    queue it for grading; raises Refused, with why, where it is not stored."""
    course = state.course
    try:
        rules = course.assignment_for(upload.exercise, upload.assignment)
    except GraderError as exc:
        raise Refused(422, str(exc)) from None
    key = upload.key or str(uuid.uuid4())
    if len(key) > MAX_KEY:
        message = f"the Idempotency-Key header is longer than {MAX_KEY} characters"
        raise Refused(422, message)
    library = course.catalog().library()
    suffix = vet(upload.content, upload.name, course.max_upload_bytes, library)
    new = NewSubmission(
        who=upload.who,
        rules=rules,
        content=upload.content,
        name=upload.name,
        suffix=suffix,
        key=key,
        arrived=upload.arrived,
    )
    try:
        return await run_in_threadpool(store, state.engine, course, new, state.secret)
    except SQLAlchemyError as exc:
        code, why = write_failure(exc)
        raise Refused(
            code,
            f"your submission was NOT stored: {why}. Submit again in a moment; "
            "if this goes on, tell your instructor.",
        ) from None


def too_big(cap: int) -> Refused:
    """The refusal of a body over the course's cap, which is never read whole."""
    return Refused(
        413,
        f"the file is over {cap // 1024} KiB, this course's limit: submit only your code "
        "(a .py file or the notebook), not data or outputs.",
    )


def file_name(name: str) -> str:
    """What the student called the file, for their own pages: no path, no control
    characters, clipped."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return _NAME.sub("_", base)[:80] or "submission"


def suffix_of(name: str) -> str:
    lowered = file_name(name).lower()
    return next((s for s in SUFFIXES if lowered.endswith(s)), "")


def vet(content: bytes, name: str, cap: int, library: Library | None = None) -> str:
    """The suffix the grader stores the upload under (.py or .ipynb; .zip for a library
    course's repository); raises Refused where it is not one of them."""
    named = file_name(name)
    if library is not None:
        return _check_package(content, named, cap, library)
    if len(content) > cap:
        size = f"{len(content) // 1024} KiB"
        most = f"{cap // 1024} KiB"
        message = f"{named} is {size}; this course takes files up to {most}. {_CODE_ONLY}"
        raise Refused(413, message)
    if not content.strip():
        message = (
            f"{named} is empty: nothing to grade. Check that you saved the file before submitting."
        )
        raise Refused(422, message)
    text = _text_of(content, named)
    _check_shape(text, named, suffix_of(name))
    return suffix_of(name) or ".py"


def _text_of(content: bytes, named: str) -> str:
    """The upload as text; Refused: a file of another kind, or text that is not UTF-8."""
    for magic, what in _MAGIC:
        if content.startswith(magic):
            raise Refused(415, f"{named} is {what}, not Python code: {_SOURCE}")
    if b"\x00" in content:
        message = f"{named} is a binary file (it holds NUL bytes), not Python code: {_SOURCE}"
        raise Refused(415, message)
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = content[: exc.start].count(b"\n") + 1
        raise Refused(
            415,
            f"{named} is not UTF-8 text (byte {exc.start + 1}, line {line}, cannot be read as "
            "UTF-8). Save it as UTF-8 in your editor (most call it 'UTF-8' in the encoding "
            "menu) and submit again.",
        ) from None


def _check_shape(text: str, named: str, suffix: str) -> None:
    """Refused: a notebook under a .py name, or a .ipynb name on something else."""
    notebook = _notebook_shaped(text)
    if suffix == ".ipynb" and not notebook:
        raise Refused(
            422,
            f"{named} is named like a notebook but is not one (a notebook is JSON with "
            "'cells'). Submit the .ipynb file Jupyter saved, or the .py file under its own "
            "name.",
        )
    if suffix != ".ipynb" and notebook:
        raise Refused(
            422,
            f"{named} holds a Jupyter notebook (JSON with 'cells'), not Python code. Submit "
            "it under a name ending in .ipynb, or export it as a .py file.",
        )


def _check_package(content: bytes, named: str, cap: int, library: Library) -> str:
    """A library course's upload: a zip of the course's files of a repository (what grade
    submit FOLDER sends), read under the same caps as when it is graded."""
    if len(content) > cap:
        raise Refused(
            413,
            f"{named} is {len(content) // 1024} KiB; this course takes up to "
            f"{cap // 1024} KiB. Submit your repository's folder with grade submit: it sends "
            "only the course's files.",
        )
    if not content.startswith(b"PK\x03\x04"):
        raise Refused(
            415,
            f"{named} is not a zip archive: this course grades a whole repository. Submit "
            "its folder with grade submit FOLDER.",
        )
    from grader.run.read.load import SubmissionError
    from grader.run.read.package import read_package

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "submission.zip"
        path.write_bytes(content)
        try:
            read_package(path, library)
        except SubmissionError as exc:
            message = f"{named}: {exc}".replace(str(path), "the archive")
            raise Refused(422, message) from None
    return ".zip"


def _notebook_shaped(text: str) -> bool:
    start = text.lstrip("\ufeff \t\r\n")[:1]
    if start != "{":
        return False
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("cells"), list)


def store(engine: Engine, course: Course, new: NewSubmission, secret: bytes) -> Receipt:
    """Store the submission and queue it for grading; raises Refused where the course's
    rules refuse it, and SQLAlchemyError where the store fails.

    On SQLite its writes join the others waiting at that moment in one transaction
    (grader.service.db.group_commit); the receipt comes only once that transaction is
    committed, on disk."""
    digest = hashlib.sha256(new.content).hexdigest()
    if course.fixed_seed is None:
        seed = submission_seed(secret, new.content)
    else:
        seed = SubmissionSeed(course.fixed_seed, f"seed-{course.fixed_seed}")
    work = functools.partial(_write, course=course, new=new, digest=digest, seed=seed)
    try:
        if is_sqlite(engine):
            taken = writer_for(engine).run(work)
        else:
            with writing(engine) as db:
                taken = work(db)
    except IntegrityError:
        # the same key, in a request that raced this one: it was stored once, by that one
        with writing(engine) as db:
            again = _earlier(db, new.who.student, new.key, new.rules, course)
        if again is None:
            raise
        taken = again
    return dataclasses.replace(taken, effect=_effect(engine, course, new, taken))


def _effect(engine: Engine, course: Course, new: NewSubmission, receipt: Receipt) -> str:
    """What the upload does to what counts, from the student's other submissions (read after
    the commit: the writer every upload waits for is not held for it)."""
    student = new.who.student
    deadline = new.rules.deadline_for(student)
    released = deadline is not None and receipt.received_at >= deadline
    rows = []
    if released:
        with reading(engine) as db:
            rows = [row for row in rows_of(db, student) if row.id != receipt.submission]
    return effect(course, student, new.rules, rows, receipt.days_late, released)


def _write(
    db: Connection, *, course: Course, new: NewSubmission, digest: str, seed: SubmissionSeed
) -> Receipt:
    """The submission's writes, in the transaction `db` has open: its receipt holds once that
    commits. Raises Refused before any write where the rules refuse it."""
    who, rules = new.who, new.rules
    if not is_sqlite(db.engine):
        # one upload of a student at a time, for an exact day's count (on SQLite: the writer)
        students = schema.students.c
        db.execute(select(students.id).where(students.id == who.student).with_for_update())
    earlier = _earlier(db, who.student, new.key, rules, course)
    if earlier is not None:
        if earlier.sha256 != digest:
            message = (
                "this idempotency key was used for another file: "
                "the client makes a new key per upload"
            )
            raise Refused(409, message)
        return earlier
    used = _admit(db, course, new)
    late = course.days_late(rules, who.student, new.arrived)
    submission = db.execute(
        _NEW_SUBMISSION,
        {
            "student_id": who.student,
            "assignment": rules.id,
            "idempotency_key": new.key,
            "sha256": digest,
            "filename": file_name(new.name),
            "suffix": new.suffix,
            "content": new.content,
            "received_at": new.arrived,
            "days_late": late,
            "seed": seed.seed,
            "seed_token": seed.token,
        },
    ).scalar_one()
    _queue(db, submission, who.student)
    limited = bool(rules.per_day) and not who.instructor
    return Receipt(
        submission=submission,
        sha256=digest,
        received_at=new.arrived,
        assignment=rules.id,
        days_late=late,
        left_today=max(rules.per_day - used - 1, 0) if limited else None,
        seed_token=seed.token,
        late_policy=late_policy(rules, late, course.late_days),
        zone=course.timezone,
    )


def _admit(db: Connection, course: Course, new: NewSubmission) -> int:
    """The student's submissions of the assignment today (0 where unlimited); raises Refused
    before it opens, after it closes, past the day's limit, or while the student's share of
    the queue is full. An instructor is never refused here."""
    who, rules, now = new.who, new.rules, new.arrived
    if who.instructor:
        return 0
    if rules.opens is not None and now < rules.opens:
        opens = clock.shown(rules.opens, course)
        raise Refused(403, f"{rules.id} opens at {opens}: submissions open then.")
    closes = course.closes_for(rules, who.student)
    if closes is not None and now > closes:
        raise Refused(403, closed(course, rules, who.student, closes))
    used = _used_today(db, who.student, rules.id, now, course) if rules.per_day else 0
    if rules.per_day and used >= rules.per_day:
        _, tomorrow = day_of(now, course.timezone)
        raise Refused(
            429,
            f"you have made {used} submissions of {rules.id} today, this course's daily "
            f"limit; the next can be made from {clock.shown(tomorrow, course)} (in "
            f"{_span(tomorrow - now)}). Test with `grade FILE` first: it is not limited.",
        )
    waiting = _waiting(db, who.student) if course.queued_per_student else 0
    if waiting >= course.queued_per_student > 0:
        raise Refused(
            429,
            f"you have {waiting} submissions waiting to be graded, the most this course "
            "queues for one student; this one was NOT stored. grade submit tries again by "
            "itself; else submit again once one is graded (grade submit --status shows them).",
            retry_after=RETRY_QUEUED,
        )
    return used


def _queue(db: Connection, submission: int, student: str) -> None:
    """The submission's job, queued at the student's next turn. queued_at is the writer's
    now: the queue's wait is measured from when the job could first be claimed."""
    db.execute(
        _NEW_JOB,
        {
            "submission_id": submission,
            "priority": 0,
            "state": "queued",
            "attempts": 0,
            "queued_at": time.time(),
            "turn": next_turns(db, {student}, 0)[student],
        },
    )


#: the statements of an upload, made once: a burst's uploads run them one after another in
#: one writer
_NEW_SUBMISSION = insert(schema.submissions).returning(schema.submissions.c.id)
_NEW_JOB = insert(schema.jobs)
_submissions = schema.submissions.c
_jobs = schema.jobs.c
_EARLIER = select(
    _submissions.id,
    _submissions.sha256,
    _submissions.received_at,
    _submissions.assignment,
    _submissions.days_late,
    _submissions.seed_token,
).where(
    _submissions.student_id == bindparam("student"),
    _submissions.assignment == bindparam("assignment"),
    _submissions.idempotency_key == bindparam("key"),
)
#: counted from the student's own submissions, each with its upload's job (priority 0).
#: `state || ''` keeps SQLite's planner off the queue's index (state, priority, ...), which it
#: took over the student's index: every upload then walked the class's whole queue, in the one
#: writer every upload of a burst waits for (SQLite's own idiom for steering its planner;
#: PostgreSQL reads it as the same comparison)
_WAITING = (
    select(func.count())
    .select_from(schema.submissions)
    .join(schema.jobs, _jobs.submission_id == _submissions.id)
    .where(
        _submissions.student_id == bindparam("student"),
        (_jobs.state + "") == "queued",
        _jobs.priority == 0,
    )
)


def _earlier(
    db: Connection, student: str, key: str, rules: Rules, course: Course
) -> Receipt | None:
    """The receipt of the upload this one retries, if any: its late policy said again (the
    first answer may never have reached the student)."""
    keys = {"student": student, "assignment": rules.id, "key": key}
    row = db.execute(_EARLIER, keys).first()
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
    counted = select(func.count()).where(
        _submissions.student_id == student,
        _submissions.assignment == assignment,
        _submissions.received_at >= start,
        _submissions.received_at < end,
    )
    return int(db.execute(counted).scalar_one())


def _waiting(db: Connection, student: str) -> int:
    """The student's uploads queued and not yet being graded (an instructor's regrades of
    them not counted)."""
    return int(db.execute(_WAITING, {"student": student}).scalar_one())


def used_today(engine: Engine, student: str, assignment: str, course: Course) -> int:
    """The student's submissions of `assignment` today, in the course's zone."""
    with reading(engine) as db:
        return _used_today(db, student, assignment, time.time(), course)


def _span(seconds: float) -> str:
    minutes = max(int(seconds // 60), 1)
    if minutes >= 60:
        return f"{minutes // 60} h {minutes % 60} min"
    return f"{minutes} min"
