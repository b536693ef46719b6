"""The worker pool of a batch: warm workers forked from one coordinator, each grading one student
at a time.

A worker is a process forked from the warm coordinator (torch imported once where several
workers share it), with a grading session of its own (grader.judge.session: its sandbox and
zygote, its caches). It grades one student at a time (grader.course.batch.grade_entry), which
writes that student's files; the coordinator hears only a line of numbers per student
(grader.course.wire).

A batch survives any one student. Each student has a deadline (`deadline_of`); a worker that
dies, or passes its student's deadline and is killed, is replaced by a fresh one, which grades
that student again first. Only a second loss is reported: as a grader error in that student's
files, which the summary counts. A worker dies the moment its coordinator does (kill -9
included), so nothing goes on grading for a batch nobody hears.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from grader.core.exercise import Exercise
from grader.course.batch import Batch, declared_by, grade_entry, write_failure
from grader.course.classlist import Entry
from grader.course.expected_ahead import compute_ahead, wanted
from grader.course.manifest import Setup
from grader.course.wire import Done, Task
from grader.judge.grading import ExpectedCache

Progress = Callable[[Done], None]
#: seconds a student may take beyond what its runs may: expected values, mutants (the first
#: student of a worker runs them), localization, writing the files. Generous: it bounds a stuck
#: worker, it times no one.
GRACE_SECONDS = 120.0
#: a student's runs (its own, localization's, mutants') counted as this many times the exercise's
#: time limit
RUNS_PER_EXERCISE = 6
#: how many times a student is graded before a lost worker counts as a grader error
TRIES = 2


def deadline_of(setup: Setup, exercises: Sequence[Exercise]) -> float:
    """Seconds a worker may spend on one student of this batch before it is killed and
    replaced."""
    limits = [setup.time_limit or e.time_limit for e in exercises] or [setup.time_limit or 60.0]
    return GRACE_SECONDS + RUNS_PER_EXERCISE * len(setup.devices) * sum(limits)


@dataclass(slots=True)
class Tally:
    """What the coordinator keeps: a few numbers per student, never the reports themselves."""

    graded: int = 0
    unreadable: int = 0
    missing: int = 0
    grader_errors: list[str] = field(default_factory=list)

    def add(self, done: Done) -> None:
        if done.outcome == "graded":
            self.graded += 1
        elif done.outcome == "unreadable":
            self.unreadable += 1
        elif done.outcome == "missing":
            self.missing += 1
        else:
            last = (done.error.strip().splitlines() or ["unknown"])[-1]
            self.grader_errors.append(f"{done.student}: {last}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Work:
    """What every worker of a batch is given when it is forked."""

    batch: Batch
    #: the students, by id
    entries: Mapping[str, Entry]
    #: the folders no submission may see
    hide: tuple[Path, ...]
    #: no process of the batch needs torch (`_lean`)
    lean: bool
    #: expected values computed ahead (grader.course.expected_ahead)
    ahead: ExpectedCache
    #: the coordinator's process id: a worker dies with it
    coordinator: int


def run(
    entries: Sequence[Entry],
    batch: Batch,
    jobs: int,
    progress: Progress,
    hide: Sequence[Path] = (),
    deadline: float | None = None,
) -> Tally:
    """Grade `entries` with `jobs` warm workers; `progress` hears of each student as soon as they
    are done.

    `hide` lists the folders no submission may see: the exercises, the other submissions, the
    reports. `deadline`: seconds per student (default: `deadline_of` the batch's exercises, or
    the longest any of them takes where each submission names its own).
    """
    from grader.run.child.warm import warm_torch

    setup, catalog = batch.setup, batch.catalog
    named = [catalog.load(i) for i in setup.exercise_ids]
    # where the batch names no exercise, each submission names its own (read here once, bounded)
    graded_as = {e.student.id: named or declared_by(e, catalog) for e in entries}
    everything = list(chain.from_iterable(graded_as.values()))
    lean = _lean(named or everything)
    seconds = {}
    for student, exercises in graded_as.items():
        seconds[student] = deadline if deadline is not None else deadline_of(setup, exercises)
    ahead: ExpectedCache = {}
    if not lean and jobs > 1:
        warm_torch()  # torch once, here: every worker forked below shares it
    elif not lean:
        # one worker: its torch expected values first, from a process that then leaves
        ahead = compute_ahead(wanted(entries, graded_as, setup))
    work = Work(
        batch=batch,
        entries={e.student.id: e for e in entries},
        hide=tuple(hide),
        lean=lean,
        ahead=ahead,
        coordinator=os.getpid(),
    )
    return _Coordinator(work, entries, seconds, progress, named).run(jobs)


@dataclass(slots=True)
class _Worker:
    sock: socket.socket
    pid: int
    #: its place among the workers: as root, its children run as a user of their own for that
    #: place
    slot: int
    task: Entry | None = None
    #: when its task must be done (monotonic)
    due: float = float("inf")
    buffer: bytearray = field(default_factory=bytearray)


class _Coordinator:
    """The batch's side of its workers: it feeds each one student at a time, hears each one
    done, and replaces a worker it lost (dead, or past its student's deadline)."""

    def __init__(
        self,
        work: Work,
        entries: Sequence[Entry],
        seconds: Mapping[str, float],
        progress: Progress,
        named: Sequence[Exercise],
    ) -> None:
        self.work = work
        self.queue = list(entries)
        #: each student's deadline, in seconds
        self.seconds = seconds
        self.progress = progress
        #: the exercises the batch names, for a grader error's report
        self.named = named
        self.tally = Tally()
        self.tries: dict[str, int] = {}
        self.workers: list[_Worker] = []
        self.selector = selectors.DefaultSelector()

    def run(self, jobs: int) -> Tally:
        try:
            for slot in range(max(1, min(jobs, len(self.queue)))):
                self.start(slot)
            while any(w.task is not None for w in self.workers):
                self.hear()
        finally:
            for worker in self.workers:
                worker.sock.close()  # a worker reads end of file and leaves
                _end(worker.pid)
            self.selector.close()
        return self.tally

    def hear(self) -> None:
        """Wait for the workers' lines until the first deadline; then end whoever passed it."""
        due = min(w.due for w in self.workers)
        for key, _ in self.selector.select(max(0.0, due - time.monotonic())):
            worker: _Worker = key.data
            lines = _read_lines(worker)
            if lines is None:
                self.lost(worker, "the worker grading this student died")
                continue
            for line in lines:
                self.record(Done.from_line(line))
                self.feed(worker)
        now = time.monotonic()
        for worker in [w for w in self.workers if w.due <= now]:
            assert worker.task is not None
            took = self.seconds[worker.task.student.id]
            self.lost(worker, f"grading this student took longer than {took:g} s")

    def start(self, slot: int) -> None:
        sock, pid = _fork_worker(self.work)
        worker = _Worker(sock, pid, slot)
        self.workers.append(worker)
        self.selector.register(sock, selectors.EVENT_READ, worker)
        self.feed(worker)

    def feed(self, worker: _Worker) -> None:
        """The worker's next student, if any is left."""
        worker.task = self.queue.pop(0) if self.queue else None
        if worker.task is None:
            worker.due = float("inf")
            return
        student = worker.task.student.id
        worker.due = time.monotonic() + self.seconds[student]
        self.tries[student] = self.tries.get(student, 0) + 1
        try:
            worker.sock.sendall(Task(student=student).to_line())
        except OSError:
            pass  # it died already: its end of file comes next

    def lost(self, worker: _Worker, why: str) -> None:
        """The worker died or ran past its deadline: end it, grade its student again once, then
        replace it."""
        self.selector.unregister(worker.sock)
        worker.sock.close()
        _end(worker.pid)
        self.workers.remove(worker)
        entry = worker.task
        if entry is not None and self.tries[entry.student.id] < TRIES:
            self.queue.insert(0, entry)  # on a fresh worker, before anyone else
        elif entry is not None:
            failed = f"{why}, {TRIES} times"
            self.record(write_failure(entry, self.work.batch, self.named, failed))
        if self.queue:
            self.start(worker.slot)

    def record(self, done: Done) -> None:
        self.tally.add(done)
        self.progress(done)


def _end(pid: int) -> None:
    try:
        # its zygote and children die with it (they die with their parent)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


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


def _fork_worker(work: Work) -> tuple[socket.socket, int]:
    ours, theirs = socket.socketpair()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            from grader.run.confine import syscalls

            # kill -9 of the coordinator ends us at once
            syscalls.die_with_parent(signal.SIGKILL, work.coordinator)
            ours.close()
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's; it ends us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _worker(theirs, work)
        except BaseException:  # noqa: BLE001
            # say why, then leave without running the parent's cleanup
            traceback.print_exc()
            code = 70
        finally:
            os._exit(code)
    theirs.close()
    return ours, pid


def _lean(exercises: Sequence[Exercise]) -> bool:
    """Every exercise the batch grades is an engine exercise, so no process of it needs torch.

    Where the batch names no exercise, these are the ones its submissions name; one that cannot be
    read, or names nothing known, is graded without torch too. Decided once, so that every
    student's report is made the same way.
    """
    from grader.run.sandbox import runs_lean

    return not exercises or runs_lean(exercises)


def _worker(sock: socket.socket, work: Work) -> None:
    """A worker's life: one grading session, and a student at a time from the coordinator."""
    from grader.judge.session import GradingSession
    from grader.run.sandbox import Sandbox

    setup = work.batch.setup
    sandbox = Sandbox(lean=work.lean, hide=work.hide, minimum=setup.isolation)
    session = GradingSession(
        sandbox, devices=setup.devices, time_limit=setup.time_limit, expected=work.ahead
    )
    with session, sock.makefile("rb") as tasks:
        for line in tasks:  # ends when the coordinator closes its end, or dies
            entry = work.entries[Task.from_line(line).student]
            done = grade_entry(entry, work.batch, session)
            sock.sendall(done.to_line())
