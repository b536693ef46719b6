"""The worker pool of a batch: warm workers forked from one coordinator, each grading one student at a time.

A worker is a process forked from the warm coordinator (torch imported once where several workers share it),
with its own sandbox and zygote. It grades one student at a time (grader.course.batch.grade_entry), which writes
that student's files; the coordinator hears only a line of numbers per student.

A batch survives any one student. Each student has a deadline (`deadline_of`); a worker that dies, or passes
its student's deadline and is killed, is replaced by a fresh one, which grades that student again first. Only
a second loss is reported: as a grader error in that student's files, which the summary counts. A worker dies
the moment its coordinator does (kill -9 included), so nothing goes on grading for a batch nobody hears.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.exercise import Exercise
from grader.course.batch import Done, Setup, Tally, Task, declared_by, grade_entry, write_failure
from grader.course.classlist import Entry
from grader.course.expected_ahead import compute_ahead, wanted
from grader.judge.catalog import Catalog
from grader.judge.grading import ExpectedCache
from grader.judge.mistake_runs import MutantCache

Progress = Callable[[Done], None]
#: seconds a student may take beyond what its runs may: expected values, mutants (the first student of a
#: worker runs them), localization, writing the files. Generous: it bounds a stuck worker, it times no one.
GRACE_SECONDS = 120.0
#: a student's runs (its own, localization's, mutants') counted as this many times the exercise's time limit
RUNS_PER_EXERCISE = 6
#: how many times a student is graded before a lost worker counts as a grader error
TRIES = 2


def deadline_of(setup: Setup, exercises: Sequence[Exercise]) -> float:
    """Seconds a worker may spend on one student of this batch before it is killed and replaced."""
    limits = [setup.time_limit or e.time_limit for e in exercises] or [setup.time_limit or 60.0]
    return GRACE_SECONDS + RUNS_PER_EXERCISE * len(setup.devices) * sum(limits)


@dataclass(slots=True)
class _Worker:
    sock: socket.socket
    pid: int
    #: its place among the workers: as root, its children run as a user of their own for that place
    slot: int
    task: Entry | None = None
    #: when its task must be done (monotonic)
    due: float = float("inf")
    buffer: bytearray = field(default_factory=bytearray)


def run(
    entries: Sequence[Entry],
    setup: Setup,
    catalog: Catalog,
    out: Path,
    fingerprint: str,
    jobs: int,
    progress: Progress,
    hide: Sequence[Path] = (),
    deadline: float | None = None,
) -> Tally:
    """Grade `entries` with `jobs` warm workers; `progress` hears of each student as soon as they are done.

    `hide` lists the folders no submission may see: the exercises, the other submissions, the reports.
    `deadline`: seconds per student (default: `deadline_of` the batch's exercises, or the longest any of them
    takes where each submission names its own).
    """
    from grader.run.child.warm import warm_torch

    named = [catalog.load(i) for i in setup.exercise_ids]
    # where the batch names no exercise, each submission names its own (read here once, bounded)
    graded_as = {e.student.id: named or declared_by(e, catalog) for e in entries}
    lean = _lean(named or [x for exercises in graded_as.values() for x in exercises])
    seconds = {
        sid: deadline if deadline is not None else deadline_of(setup, exercises)
        for sid, exercises in graded_as.items()
    }
    ahead: ExpectedCache = {}
    if not lean and jobs > 1:
        warm_torch()  # torch once, here: every worker forked below shares it
    elif not lean:  # one worker: its torch expected values first, from a process that then leaves
        ahead = compute_ahead(wanted(entries, graded_as, setup))
    tally = Tally()
    queue = list(entries)
    tries: dict[str, int] = {}
    workers: list[_Worker] = []
    selector = selectors.DefaultSelector()
    coordinator = os.getpid()

    def start(slot: int) -> None:
        sock, pid = _fork_worker(
            entries, setup, catalog, out, fingerprint, slot, hide, lean, coordinator, ahead
        )
        worker = _Worker(sock, pid, slot)
        workers.append(worker)
        selector.register(sock, selectors.EVENT_READ, worker)
        feed(worker)

    def feed(worker: _Worker) -> None:
        worker.task = queue.pop(0) if queue else None
        worker.due = (
            time.monotonic() + seconds[worker.task.student.id]
            if worker.task is not None
            else float("inf")
        )
        if worker.task is not None:
            tries[worker.task.student.id] = tries.get(worker.task.student.id, 0) + 1
            try:
                worker.sock.sendall(Task(student=worker.task.student.id).to_line())
            except OSError:
                pass  # it died already: its end of file comes next

    def lost(worker: _Worker, why: str) -> None:
        """The worker died or ran past its deadline: end it, grade its student again once, then replace it."""
        selector.unregister(worker.sock)
        worker.sock.close()
        _end(worker.pid)
        workers.remove(worker)
        entry = worker.task
        if entry is not None:
            if tries[entry.student.id] < TRIES:
                queue.insert(0, entry)  # on a fresh worker, before anyone else
            else:
                _record(
                    tally,
                    write_failure(entry, setup, named, out, fingerprint, f"{why}, {TRIES} times"),
                    progress,
                )
        if queue:
            start(worker.slot)

    try:
        for slot in range(max(1, min(jobs, len(queue)))):
            start(slot)
        while any(w.task is not None for w in workers):
            due = min(w.due for w in workers)
            for key, _ in selector.select(max(0.0, due - time.monotonic())):
                worker: _Worker = key.data
                lines = _read_lines(worker)
                if lines is None:
                    lost(worker, "the worker grading this student died")
                    continue
                for line in lines:
                    _record(tally, Done.from_line(line), progress)
                    feed(worker)
            now = time.monotonic()
            for worker in [w for w in workers if w.due <= now]:
                assert worker.task is not None
                lost(
                    worker,
                    f"grading this student took longer than {seconds[worker.task.student.id]:g} s",
                )
    finally:
        for worker in workers:
            worker.sock.close()  # a worker reads end of file and leaves
            _end(worker.pid)
        selector.close()
    return tally


def _end(pid: int) -> None:
    try:
        os.kill(
            pid, signal.SIGKILL
        )  # its zygote and children die with it (they die with their parent)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _record(tally: Tally, done: Done, progress: Progress) -> None:
    tally.add(done)
    progress(done)


def _read_lines(worker: _Worker) -> list[bytes] | None:
    """The complete lines the worker has sent, or None once it is gone."""
    try:
        chunk = worker.sock.recv(65536)
    except OSError:
        chunk = b""
    if not chunk:
        return None
    worker.buffer += chunk
    *lines, rest = bytes(worker.buffer).split(b"\n")
    worker.buffer = bytearray(rest)
    return [line + b"\n" for line in lines]


def _fork_worker(
    entries: Sequence[Entry],
    setup: Setup,
    catalog: Catalog,
    out: Path,
    fingerprint: str,
    slot: int,
    hide: Sequence[Path],
    lean: bool,
    coordinator: int,
    ahead: ExpectedCache,
) -> tuple[socket.socket, int]:
    ours, theirs = socket.socketpair()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            from grader.run.confine import syscalls

            syscalls.die_with_parent(
                signal.SIGKILL, coordinator
            )  # kill -9 of the coordinator ends us at once
            ours.close()
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's; it ends us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _worker(
                theirs,
                {e.student.id: e for e in entries},
                setup,
                catalog,
                out,
                fingerprint,
                slot,
                hide,
                lean,
                ahead,
            )
        except BaseException:  # noqa: BLE001 - say why, then leave without running the parent's cleanup
            traceback.print_exc()
            code = 70
        finally:
            os._exit(code)
    theirs.close()
    return ours, pid


def _lean(exercises: Sequence[Exercise]) -> bool:
    """Every exercise the batch grades is an engine exercise, so no process of it needs torch.

    Where the batch names no exercise, these are the ones its submissions name; one that cannot be read,
    or names nothing known, is graded without torch too. Decided once, so that every student's report is
    made the same way.
    """
    from grader.run.sandbox import runs_lean

    return not exercises or runs_lean(exercises)


def _worker(
    sock: socket.socket,
    by_id: dict[str, Entry],
    setup: Setup,
    catalog: Catalog,
    out: Path,
    fingerprint: str,
    slot: int,
    hide: Sequence[Path],
    lean: bool,
    ahead: ExpectedCache,
) -> None:
    from grader.run.sandbox import Sandbox

    cache: ExpectedCache = dict(ahead)  # grader.course.expected_ahead
    mutant_cache: MutantCache = {}
    # One slot per concurrent worker: as root, each worker's children run as a user of their own.
    with (
        Sandbox(lean=lean, hide=hide, minimum=setup.isolation) as sandbox,
        sock.makefile("rb") as tasks,
    ):
        for line in tasks:  # ends when the coordinator closes its end, or dies
            entry = by_id[Task.from_line(line).student]
            done = grade_entry(
                entry, setup, catalog, sandbox, out, fingerprint, cache, mutant_cache
            )
            sock.sendall(done.to_line())
