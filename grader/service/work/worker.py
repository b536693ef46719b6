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
    graded = 0
    scratch_root = options.scratch or Path(tempfile.mkdtemp(prefix="grade-worker-"))
    scratch_root.mkdir(parents=True, exist_ok=True, mode=0o700)
    hide = [course.folder, course.exercises, scratch_root]
    with Sandbox(lean=lean, hide=hide, minimum=course.isolation) as sandbox:
        # registered once its zygote is on its way: a worker
        # on the instructor page is one that can grade
        ident = queue.register(engine, options.name, beat=options.lease / 3)
        current: list[int | None] = [None, 0]  # the job being graded, and how many were
        beat = threading.Thread(
            target=_heartbeats, args=(engine, course, ident, current, options, stop), daemon=True
        )
        beat.start()
        say(
            f"worker {ident}: grading {course.name} from the queue "
            f"({'engine exercises only' if lean else 'torch warm'})"
        )
        try:
            grader = Grader(course, sandbox, scratch_root)
            wait = 0.01
            idle_since = time.monotonic()
            while not stop.is_set() and (options.max_jobs is None or graded < options.max_jobs):
                if options.parent is not None and os.getppid() != options.parent:
                    say(f"worker {ident}: the server is gone; leaving")
                    break
                job = _claim(engine, ident, options.lease, say)
                if job is None:
                    if (
                        options.idle_exit is not None
                        and time.monotonic() - idle_since > options.idle_exit
                    ):
                        break
                    stop.wait(wait)
                    wait = min(wait * 2, options.poll)
                    continue
                wait, idle_since = 0.01, time.monotonic()
                current[0] = job.job
                result = grader.grade(job, job.stored or fetch(engine, job.submission))
                _finish(engine, ident, result, say)
                current[0] = None
                graded += 1
                current[1] = graded
        finally:
            stop.set()
            beat.join(timeout=5)
            queue.stopped(engine, ident, graded)
    say(f"worker {ident}: graded {graded}")
    return graded


def _claim(
    engine: Engine, ident: str, lease: float, say: Callable[[str], None]
) -> queue.Claimed | None:
    try:
        return queue.claim(engine, ident, lease)
    except (
        SQLAlchemyError
    ) as exc:  # the store is down or busy: wait and look again, never lose the worker
        say(f"worker {ident}: cannot claim a job ({str(exc).splitlines()[0][:200]}); trying again")
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
            say(
                f"worker {ident}: cannot write the result of job {result.job} ({str(exc).splitlines()[0][:200]})"
            )
            time.sleep(2.0**attempt)


def _heartbeats(
    engine: Engine,
    course: Course,
    ident: str,
    current: list[int | None],
    options: WorkerOptions,
    stop: threading.Event,
) -> None:
    """Renew the current job's lease and say this worker is alive; now
    and then, requeue lapsed leases (or give up on a job that stopped
    its worker MAX_ATTEMPTS times, with a report its student can read)."""
    beats = 0
    while not stop.wait(options.lease / 3):
        try:
            queue.heartbeat(engine, ident, current[0], options.lease, current[1] or 0)
            beats += 1
            if beats % 2 == 0:
                queue.reap(engine, lambda stored: given_up(course, stored))
        except SQLAlchemyError:
            continue  # the next beat tries again; the lease allows two to be missed
