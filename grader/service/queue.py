"""The grading queue, in the store: jobs claimed under a lease, results written once, workers' heartbeats.

One design for every deployment: the server's own workers on its SQLite file, and `grade worker`s on other
machines sharing a PostgreSQL. A claim is one UPDATE of the oldest queued job, picked by a sub-select that
PostgreSQL runs `FOR UPDATE SKIP LOCKED` (claimers never wait on each other, never take the same row);
SQLite runs it under its single write lock. The claimer holds a lease it renews with each heartbeat. A
worker that dies stops renewing; once its lease lapses, `reap` puts the job back in the queue (a job that
took down its worker MAX_ATTEMPTS times is given up: a grader error, never a silent drop). A result's key
is its job's id, so a second worker that graded the same job (its lease lapsed while it was slow) writes
nothing: each job counts once.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, and_, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from grader.service import schema
from grader.service.store import is_sqlite, reading, writing

#: a job whose worker died this many times while grading it is not tried again
MAX_ATTEMPTS = 3
j = schema.jobs.c


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
    #: how the receipt named the seed: "s1-..." drawn from the course secret, "seed-N" the course's fixed seed
    seed_token: str = ""


@dataclass(frozen=True, slots=True)
class Claimed:
    job: int
    submission: int
    attempts: int
    #: the submission itself, read in the claim's own transaction
    stored: Stored | None = None


def stored(db: Connection, submission: int) -> Stored:
    s = schema.submissions.c
    row = db.execute(select(s.id, s.student_id, s.assignment, s.filename, s.suffix, s.content, s.sha256, s.seed,
                            s.seed_token).where(s.id == submission)).one()
    return Stored(id=row.id, student=row.student_id, assignment=row.assignment, filename=row.filename,
                  suffix=row.suffix if row.suffix in (".py", ".ipynb") else ".py", content=bytes(row.content),
                  sha256=row.sha256, seed=row.seed, seed_token=row.seed_token)


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


def register(engine: Engine, name: str | None = None) -> str:
    """A new worker's row; its id (host, pid and a counter: unique across machines)."""
    host = socket.gethostname()
    now = time.time()
    ident = name or f"{host}-{os.getpid()}-{int(now * 1000) % 10**6}"
    with writing(engine) as db:
        db.execute(insert(schema.workers).values(id=ident, host=host, pid=os.getpid(), started_at=now,
                                                 heartbeat_at=now, graded=0, load=_load(), cores=os.cpu_count() or 1))
    return ident


def heartbeat(engine: Engine, worker: str, job: int | None, lease: float, graded: int) -> None:
    """I am alive, grading `job` (having graded `graded`): renew its lease.

    The worker's row changes only here, not with each claim and result: two statements less per job.
    """
    now = time.time()
    with writing(engine) as db:
        db.execute(update(schema.workers).where(schema.workers.c.id == worker)
                   .values(heartbeat_at=now, job_id=job, load=_load(), graded=graded))
        if job is not None:
            db.execute(update(schema.jobs).where(j.id == job, j.worker == worker, j.state == "running")
                       .values(lease_until=now + lease))


def stopped(engine: Engine, worker: str, graded: int) -> None:
    with writing(engine) as db:
        db.execute(update(schema.workers).where(schema.workers.c.id == worker)
                   .values(stopped_at=time.time(), job_id=None, graded=graded))


def claim(engine: Engine, worker: str, lease: float) -> Claimed | None:
    """The oldest job of the highest priority, now leased to `worker`, with its submission; None when none is queued.

    One transaction: the claim and the submission's bytes together.
    """
    now = time.time()
    pick = select(j.id).where(j.state == "queued").order_by(j.priority, j.id).limit(1)
    if not is_sqlite(engine):
        pick = pick.with_for_update(skip_locked=True)
    with writing(engine) as db:
        row = db.execute(update(schema.jobs).where(j.id == pick.scalar_subquery(), j.state == "queued")
                         .values(state="running", worker=worker, lease_until=now + lease, started_at=now,
                                 attempts=j.attempts + 1)
                         .returning(j.id, j.submission_id, j.attempts)).first()
        found = stored(db, row.submission_id) if row is not None else None
    return None if row is None else Claimed(row.id, row.submission_id, row.attempts, found)


def finish(engine: Engine, worker: str, result: Result) -> bool:
    """Write the job's result, once: False when another worker's result for it was written first."""
    now = time.time()
    values = {"job_id": result.job, "submission_id": result.submission, "outcome": result.outcome,
              "score": result.score, "max_score": result.max_score, "public_score": result.public_score,
              "report": result.report, "error": result.error, "worker": worker, "graded_at": now,
              "seconds": result.seconds}
    dialect_insert = sqlite_insert if is_sqlite(engine) else pg_insert
    with writing(engine) as db:
        written = db.execute(dialect_insert(schema.results).values(**values)
                             .on_conflict_do_nothing(index_elements=["job_id"])).rowcount == 1
        db.execute(update(schema.jobs).where(j.id == result.job)
                   .values(state="done", finished_at=now, lease_until=None))
    return written


def reap(engine: Engine) -> list[int]:
    """Jobs whose lease lapsed (their worker died or hung): queued again, or given up after MAX_ATTEMPTS."""
    now = time.time()
    lapsed = and_(j.state == "running", j.lease_until < now)
    with writing(engine) as db:
        again = [r.id for r in db.execute(update(schema.jobs).where(lapsed, j.attempts < MAX_ATTEMPTS)
                                          .values(state="queued", worker=None, lease_until=None)
                                          .returning(j.id))]
        dead = db.execute(select(j.id, j.submission_id).where(lapsed, j.attempts >= MAX_ATTEMPTS)).all()
    for job, submission in dead:
        finish(engine, "reaper", Result(
            job=job, submission=submission, outcome="grader-error", score=0.0, max_score=0.0, public_score=0.0,
            report="", error=f"the worker grading this submission died {MAX_ATTEMPTS} times; it was not tried again",
            seconds=0.0))
    return again + [job for job, _ in dead]


def enqueue_all(engine: Engine, assignment: str | None, student: str | None = None) -> int:
    """Regrade every stored submission (of one assignment, of one student): a job each, behind every new
    submission."""
    s = schema.submissions.c
    now = time.time()
    with writing(engine) as db:
        wanted = select(s.id)
        if assignment is not None:
            wanted = wanted.where(s.assignment == assignment)
        if student is not None:
            wanted = wanted.where(s.student_id == student)
        ids = [r.id for r in db.execute(wanted)]
        if ids:
            db.execute(insert(schema.jobs), [{"submission_id": i, "priority": 1, "state": "queued", "attempts": 0,
                                              "queued_at": now} for i in ids])
    return len(ids)


def depth(engine: Engine) -> dict[str, object]:
    """The queue now: jobs per state, and how long the oldest queued one has waited."""
    with reading(engine) as db:
        counts: dict[str, int] = {state: n for state, n in db.execute(select(j.state, func.count())
                                                                        .group_by(j.state)).tuples()}
        oldest = db.execute(select(func.min(j.queued_at)).where(j.state == "queued")).scalar_one()
    return {"queued": int(counts.get("queued", 0)), "running": int(counts.get("running", 0)),
            "done": int(counts.get("done", 0)),
            "oldest_wait": round(time.time() - oldest, 1) if oldest is not None else 0.0}


def worker_rows(engine: Engine, since: float) -> list[dict[str, object]]:
    """Every worker seen since `since`: id, host, load, cores, its job, how many it graded, its last heartbeat."""
    w = schema.workers.c
    with reading(engine) as db:
        rows = db.execute(select(w.id, w.host, w.pid, w.load, w.cores, w.job_id, w.graded, w.heartbeat_at,
                                 w.started_at, w.stopped_at).where(w.heartbeat_at >= since)
                          .order_by(w.started_at)).mappings().all()
    return [dict(r) for r in rows]


def _load() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return 0.0
