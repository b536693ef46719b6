"""`grade worker`: take jobs from the course's queue,
grade each in a warm sandbox, write each result once.

A worker runs anywhere that reaches the store (the server's own, on its SQLite file; others
on other machines, on PostgreSQL) and holds the course folder (its exercises and
course.toml). Its zygotes stay warm between jobs. A thread renews the lease of the job being
graded with each heartbeat, so the instructor page sees the worker and a worker that dies
frees its job when the lease lapses. SIGTERM (or SIGINT) lets it finish the job it holds and
leave: workers can be removed during a surge without losing a job, and added at any time.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from grader.service.config import Course
from grader.service.work import queue
from grader.service.work.grading import Grader, fetch, given_up

#: a job's lease, and the heartbeat renewing it (a third of it, so two can be missed)
LEASE_SECONDS = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerOptions:
    lease: float = LEASE_SECONDS
    #: the longest wait between two looks at an empty queue (the first is short, then they grow)
    poll: float = 0.25
    #: the worker's own scratch folder (default: a fresh temporary one)
    scratch: Path | None = None
    name: str | None = None
    #: leave once this process's parent is gone (the server's own workers)
    parent: int | None = None
    #: leave after this many jobs (tests, benchmarks)
    max_jobs: int | None = None
    #: leave once the queue has been empty this long
    idle_exit: float | None = None
    #: run this much lower than the processes that started it
    #: (the server's own workers: its receipts come first)
    nice: int = 0


class Progress:
    """What the worker is doing, as its heartbeat thread reads it: the job being graded (None
    between jobs), and how many it has graded."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._job: int | None = None
        self._graded = 0

    def start(self, job: int) -> None:
        with self._lock:
            self._job = job

    def done(self) -> int:
        """The job is graded: how many are, now."""
        with self._lock:
            self._job = None
            self._graded += 1
            return self._graded

    def now(self) -> tuple[int | None, int]:
        """The job being graded, and how many were."""
        with self._lock:
            return self._job, self._graded


def run_worker(
    course: Course, engine: Engine, options: WorkerOptions, say: Callable[[str], None] = print
) -> int:
    """Grade jobs until told to stop; how many this worker graded."""
    from grader.run.sandbox import Sandbox, runs_lean

    if options.nice:
        os.nice(options.nice)
    stop = threading.Event()

    def leave(signum: int, _: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGINT, leave)
    exercises = [course.catalog().load(i) for i in course.exercise_ids()]
    lean = runs_lean(exercises)
    if not lean:
        from grader.run.child.warm import warm_torch

        warm_torch()
    scratch_root = options.scratch or Path(tempfile.mkdtemp(prefix="grade-worker-"))
    scratch_root.mkdir(parents=True, exist_ok=True, mode=0o700)
    hide = [course.folder, course.exercises, scratch_root]
    progress = Progress()
    with Sandbox(lean=lean, hide=hide, minimum=course.isolation) as sandbox:
        # registered once its zygote is on its way: a worker
        # on the instructor page is one that can grade
        ident = queue.register(engine, options.name, beat=options.lease / 3)
        beats = (engine, course, ident, progress, options, stop)
        beat = threading.Thread(target=_heartbeats, args=beats, daemon=True)
        beat.start()
        kind = "engine exercises only" if lean else "torch warm"
        say(f"worker {ident}: grading {course.name} from the queue ({kind})")
        try:
            grader = Grader(course, sandbox, scratch_root)
            _work(engine, grader, ident, progress, options, stop, say)
        finally:
            stop.set()
            beat.join(timeout=5)
            queue.stopped(engine, ident, progress.now()[1])
    graded = progress.now()[1]
    say(f"worker {ident}: graded {graded}")
    return graded


def _work(
    engine: Engine,
    grader: Grader,
    ident: str,
    progress: Progress,
    options: WorkerOptions,
    stop: threading.Event,
    say: Callable[[str], None],
) -> None:
    """Claim and grade jobs, one at a time, until told to stop, or until `options` says to
    leave (after so many jobs, once idle so long, once the server is gone)."""
    wait = 0.01
    idle_since = time.monotonic()
    while not stop.is_set():
        if options.max_jobs is not None and progress.now()[1] >= options.max_jobs:
            return
        if options.parent is not None and os.getppid() != options.parent:
            say(f"worker {ident}: the server is gone; leaving")
            return
        job = _claim(engine, ident, options.lease, say)
        if job is None:
            idle = time.monotonic() - idle_since
            if options.idle_exit is not None and idle > options.idle_exit:
                return
            stop.wait(wait)
            wait = min(wait * 2, options.poll)
            continue
        wait, idle_since = 0.01, time.monotonic()
        progress.start(job.job)
        result = grader.grade(job, job.stored or fetch(engine, job.submission))
        _finish(engine, ident, result, say)
        progress.done()


def _claim(
    engine: Engine, ident: str, lease: float, say: Callable[[str], None]
) -> queue.Claimed | None:
    try:
        return queue.claim(engine, ident, lease)
    except SQLAlchemyError as exc:
        # the store is down or busy: wait and look again, never lose the worker
        why = str(exc).splitlines()[0][:200]
        say(f"worker {ident}: cannot claim a job ({why}); trying again")
        time.sleep(1.0)
        return None


def _finish(engine: Engine, ident: str, result: queue.Result, say: Callable[[str], None]) -> None:
    """Write the result, trying again while the store is unreachable;
    past that, the lease lapses and the job is graded again elsewhere:
    a result is never half-written, and never written twice."""
    for attempt in range(5):
        try:
            queue.finish(engine, ident, result)
            return
        except SQLAlchemyError as exc:
            why = str(exc).splitlines()[0][:200]
            say(f"worker {ident}: cannot write the result of job {result.job} ({why})")
            time.sleep(2.0**attempt)


def _heartbeats(
    engine: Engine,
    course: Course,
    ident: str,
    progress: Progress,
    options: WorkerOptions,
    stop: threading.Event,
) -> None:
    """Renew the current job's lease and say this worker is alive; now
    and then, requeue lapsed leases (or give up on a job that stopped
    its worker MAX_ATTEMPTS times, with a report its student can read)."""
    beats = 0
    while not stop.wait(options.lease / 3):
        try:
            job, graded = progress.now()
            queue.heartbeat(engine, ident, job, options.lease, graded)
            beats += 1
            if beats % 2 == 0:
                queue.reap(engine, lambda stored: given_up(course, stored))
        except SQLAlchemyError:
            continue  # the next beat tries again; the lease allows two to be missed
