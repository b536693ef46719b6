"""The grading queue, in the store: jobs claimed under
a lease, results written once, workers' heartbeats.

One design for every deployment: the server's own workers on its SQLite file, and `grade
worker`s on other machines sharing a PostgreSQL. A claim is one UPDATE of the next queued job,
picked by a sub-select that PostgreSQL runs `FOR UPDATE SKIP LOCKED` (claimers never wait on
each other, never take the same row); SQLite runs it under its single write lock. The next job
is round-robin by student: the best priority (new uploads before an instructor's regrade), then
the lowest turn, then the oldest, among the students with no job being graded. A student's jobs
are graded one at a time, so one student's slow files hold one worker, never all of them. A
job's turn is set when it is queued, one past its student's other jobs of that priority still
queued or running, so one student's tenth queued upload waits behind every other student's next
one: no student's backlog delays another's report by more than the job being graded. The
claimer holds a lease it renews with each heartbeat. A worker that dies stops renewing; once
its lease lapses, `reap` puts the job back in the queue, a turn later (a job that took down its
worker MAX_ATTEMPTS times is given up, with a report that says so: never a silent drop, and
never a queue held up by it). A result's key is its job's id, so a second worker that graded
the same job (its lease lapsed while it was slow) writes nothing: each job counts once.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Connection, Engine, Select, and_, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from grader.service.db import schema
from grader.service.db.store import is_sqlite, reading, writing

#: a job whose worker died this many times while grading it is not tried again
MAX_ATTEMPTS = 3
_jobs = schema.jobs.c


@dataclass(frozen=True, slots=True, kw_only=True)
class Stored:
    """A submission as the store holds it."""

    id: int
    student: str
    assignment: str
    filename: str
    suffix: str
    content: bytes
    sha256: str
    seed: int
    #: how the receipt named the seed: "s1-..." drawn from
    #: the course secret, "seed-N" the course's fixed seed
    seed_token: str = ""


@dataclass(frozen=True, slots=True)
class Claimed:
    job: int
    submission: int
    attempts: int
    #: the submission itself, read in the claim's own transaction
    stored: Stored | None = None


#: what an upload is stored as: a file, a notebook, or a
#: library course's repository (a zip of its course files)
STORED_SUFFIXES = (".py", ".ipynb", ".zip")


def stored(db: Connection, submission: int) -> Stored:
    s = schema.submissions.c
    row = db.execute(
        select(
            s.id,
            s.student_id,
            s.assignment,
            s.filename,
            s.suffix,
            s.content,
            s.sha256,
            s.seed,
            s.seed_token,
        ).where(s.id == submission)
    ).one()
    return Stored(
        id=row.id,
        student=row.student_id,
        assignment=row.assignment,
        filename=row.filename,
        suffix=row.suffix if row.suffix in STORED_SUFFIXES else ".py",
        content=bytes(row.content),
        sha256=row.sha256,
        seed=row.seed,
        seed_token=row.seed_token,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    job: int
    submission: int
    outcome: str
    score: float
    max_score: float
    public_score: float
    report: str
    error: str
    seconds: float


def register(engine: Engine, name: str | None = None, beat: float | None = None) -> str:
    """A new worker's row; its id (host, pid and a counter: unique across
    machines). `beat`: the seconds between its heartbeats, by which the
    instructor's page tells a lost worker (two missed) from a quiet one."""
    host = socket.gethostname()
    now = time.time()
    ident = name or f"{host}-{os.getpid()}-{int(now * 1000) % 10**6}"
    with writing(engine) as db:
        db.execute(
            insert(schema.workers).values(
                id=ident,
                host=host,
                pid=os.getpid(),
                started_at=now,
                heartbeat_at=now,
                graded=0,
                load=_load(),
                cores=os.cpu_count() or 1,
                beat=beat,
            )
        )
    return ident


def heartbeat(engine: Engine, worker: str, job: int | None, lease: float, graded: int) -> None:
    """I am alive, grading `job` (having graded `graded`): renew its lease.

    The worker's row changes only here, not with each claim and result: two statements less per job.
    """
    now = time.time()
    with writing(engine) as db:
        db.execute(
            update(schema.workers)
            .where(schema.workers.c.id == worker)
            .values(heartbeat_at=now, job_id=job, load=_load(), graded=graded)
        )
        if job is not None:
            db.execute(
                update(schema.jobs)
                .where(_jobs.id == job, _jobs.worker == worker, _jobs.state == "running")
                .values(lease_until=now + lease)
            )


def stopped(engine: Engine, worker: str, graded: int) -> None:
    with writing(engine) as db:
        db.execute(
            update(schema.workers)
            .where(schema.workers.c.id == worker)
            .values(stopped_at=time.time(), job_id=None, graded=graded)
        )


def claim(engine: Engine, worker: str, lease: float) -> Claimed | None:
    """The next job (best priority, lowest turn, oldest), now leased
    to `worker`, with its submission; None when none is queued.

    One transaction: the claim and the submission's bytes together.
    """
    now = time.time()
    s = schema.submissions.c
    pick = (
        select(_jobs.id)
        .join(schema.submissions, s.id == _jobs.submission_id)
        .where(_jobs.state == "queued", s.student_id.not_in(_grading_students()))
        .order_by(_jobs.priority, _jobs.turn, _jobs.id)
        .limit(1)
    )
    if not is_sqlite(engine):
        pick = pick.with_for_update(skip_locked=True, of=schema.jobs)
    with writing(engine) as db:
        row = db.execute(
            update(schema.jobs)
            .where(_jobs.id == pick.scalar_subquery(), _jobs.state == "queued")
            .values(
                state="running",
                worker=worker,
                lease_until=now + lease,
                started_at=now,
                attempts=_jobs.attempts + 1,
            )
            .returning(_jobs.id, _jobs.submission_id, _jobs.attempts)
        ).first()
        found = stored(db, row.submission_id) if row is not None else None
    return None if row is None else Claimed(row.id, row.submission_id, row.attempts, found)


def _grading_students() -> Select[tuple[str]]:
    """The students with a job being graded now: none of them gets a second worker
    (a student who uploads work that holds a worker for its whole time limit holds
    one worker, never every one, so the others' reports keep flowing). On
    PostgreSQL two claims at the same instant can each miss the other's: a student
    then holds two workers for one job's time, never more than the claimers racing."""
    busy, owner = schema.jobs.alias("busy"), schema.submissions.alias("owner")
    return (
        select(owner.c.student_id)
        .select_from(busy.join(owner, owner.c.id == busy.c.submission_id))
        .where(busy.c.state == "running")
    )


def finish(engine: Engine, worker: str, result: Result) -> bool:
    """Write the job's result, once: False when another worker's result for it was written first."""
    now = time.time()
    values = {
        "job_id": result.job,
        "submission_id": result.submission,
        "outcome": result.outcome,
        "score": result.score,
        "max_score": result.max_score,
        "public_score": result.public_score,
        "report": result.report,
        "error": result.error,
        "worker": worker,
        "graded_at": now,
        "seconds": result.seconds,
    }
    dialect_insert = sqlite_insert if is_sqlite(engine) else pg_insert
    with writing(engine) as db:
        written = (
            db.execute(
                dialect_insert(schema.results)
                .values(**values)
                .on_conflict_do_nothing(index_elements=["job_id"])
            ).rowcount
            == 1
        )
        db.execute(
            update(schema.jobs)
            .where(_jobs.id == result.job)
            .values(state="done", finished_at=now, lease_until=None)
        )
    return written


def reap(engine: Engine, given_up: Callable[[Stored], str] | None = None) -> list[int]:
    """Jobs whose lease lapsed (their worker died or hung): queued again a turn later
    (behind the other students' next jobs), or given up after MAX_ATTEMPTS, with the
    report `given_up` makes for the submission (the JSON its student reads)."""
    return release(engine, _jobs.lease_until < time.time(), given_up)


def release(
    engine: Engine, which: ColumnElement[bool], given_up: Callable[[Stored], str] | None = None
) -> list[int]:
    """The running jobs `which` picks (their worker is gone): queued
    again a turn later, or given up after MAX_ATTEMPTS claims (each claim
    counts one: a job that kills every worker that takes it stops there)."""
    held = and_(_jobs.state == "running", which)
    with writing(engine) as db:
        again = [
            r.id
            for r in db.execute(
                update(schema.jobs)
                .where(held, _jobs.attempts < MAX_ATTEMPTS)
                .values(state="queued", worker=None, lease_until=None, turn=_jobs.turn + 1)
                .returning(_jobs.id)
            )
        ]
        dead = db.execute(
            select(_jobs.id, _jobs.submission_id).where(held, _jobs.attempts >= MAX_ATTEMPTS)
        ).all()
        found = (
            {submission: stored(db, submission) for _, submission in dead}
            if given_up is not None
            else {}
        )
    for job, submission in dead:
        report = given_up(found[submission]) if given_up is not None else ""
        finish(
            engine,
            "reaper",
            Result(
                job=job,
                submission=submission,
                outcome="grader-error",
                score=0.0,
                max_score=0.0,
                public_score=0.0,
                report=report,
                error=GAVE_UP,
                seconds=0.0,
            ),
        )
    return again + [job for job, _ in dead]


#: the instructor's record of a job given up (results.error), and what its student reads
GAVE_UP = (
    f"grading this submission stopped its worker {MAX_ATTEMPTS} times (the worker was killed or "
    "hung past its lease); it was not tried again"
)
GAVE_UP_FOR_STUDENT = (
    f"The grader gave up on this submission: grading it stopped the grading worker {MAX_ATTEMPTS} "
    "times (the worker was killed, or stopped answering). Nothing in it was scored. If your code "
    "does nothing unusual, this is not your fault: your instructor sees it on their page. If it "
    "starts processes, uses a great deal of memory or tampers with the machine, fix that and "
    "submit again."
)


def next_turns(db: Connection, students: set[str], priority: int) -> dict[str, int]:
    """Each student's next turn at `priority`: one past their
    jobs of it still queued or running (0 when none is)."""
    s = schema.submissions.c
    busy = db.execute(
        select(s.student_id, func.max(_jobs.turn))
        .join(schema.submissions, s.id == _jobs.submission_id)
        .where(
            _jobs.priority == priority,
            _jobs.state.in_(("queued", "running")),
            s.student_id.in_(sorted(students)),
        )
        .group_by(s.student_id)
    )
    found = {student: int(turn) + 1 for student, turn in busy}
    return {student: found.get(student, 0) for student in students}


def enqueue_all(engine: Engine, assignment: str | None, student: str | None = None) -> int:
    """Regrade every stored submission (of one assignment, of
    one student): a job each, behind every new submission."""
    s = schema.submissions.c
    now = time.time()
    with writing(engine) as db:
        wanted = select(s.id, s.student_id)
        if assignment is not None:
            wanted = wanted.where(s.assignment == assignment)
        if student is not None:
            wanted = wanted.where(s.student_id == student)
        rows = db.execute(wanted.order_by(s.id)).all()
        # round-robin by student in the regrade too: each
        # student's first, then each student's second...
        turns = next_turns(db, {r.student_id for r in rows}, 1) if rows else {}
        jobs = []
        for row in rows:
            jobs.append(
                {
                    "submission_id": row.id,
                    "priority": 1,
                    "state": "queued",
                    "attempts": 0,
                    "queued_at": now,
                    "turn": turns[row.student_id],
                }
            )
            turns[row.student_id] += 1
        if jobs:
            db.execute(insert(schema.jobs), jobs)
    return len(jobs)


def ahead_of(db: Connection, submission: int) -> int:
    """How many uploads' jobs still queued were queued before the submission's newest job (an
    instructor's regrades not counted)."""
    newest = select(func.max(_jobs.id)).where(_jobs.submission_id == submission)
    ahead = select(func.count()).where(
        _jobs.state == "queued",
        _jobs.priority == 0,
        _jobs.id < newest.scalar_subquery(),
    )
    return int(db.execute(ahead).scalar_one())


def depth(engine: Engine) -> dict[str, object]:
    """The queue now: jobs per state, and how long the oldest queued one has waited."""
    with reading(engine) as db:
        counts: dict[str, int] = {
            state: n
            for state, n in db.execute(select(_jobs.state, func.count()).group_by(_jobs.state))
        }
        oldest = db.execute(
            select(func.min(_jobs.queued_at)).where(_jobs.state == "queued")
        ).scalar_one()
    return {
        "queued": int(counts.get("queued", 0)),
        "running": int(counts.get("running", 0)),
        "done": int(counts.get("done", 0)),
        "oldest_wait": round(time.time() - oldest, 1) if oldest is not None else 0.0,
    }


def worker_rows(engine: Engine, since: float) -> list[dict[str, object]]:
    """Every worker seen since `since`: id, host, load, cores, its heartbeat's interval and
    last beat, how many it graded, and the job it last said it held with where that job is
    now (job_state, job_worker: who holds or graded it, job_error: why it was given up)."""
    w, r = schema.workers.c, schema.results.c
    held = schema.jobs.alias("held")
    with reading(engine) as db:
        rows = (
            db.execute(
                select(
                    w.id,
                    w.host,
                    w.pid,
                    w.load,
                    w.cores,
                    w.job_id,
                    w.graded,
                    w.heartbeat_at,
                    w.started_at,
                    w.stopped_at,
                    w.beat,
                    held.c.state.label("job_state"),
                    func.coalesce(r.worker, held.c.worker).label("job_worker"),
                    r.error.label("job_error"),
                )
                .outerjoin(held, held.c.id == w.job_id)
                .outerjoin(schema.results, r.job_id == w.job_id)
                .where(w.heartbeat_at >= since)
                .order_by(w.started_at)
            )
            .mappings()
            .all()
        )
    return [dict(r) for r in rows]


def _load() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return 0.0
