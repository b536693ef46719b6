"""The worker pool of a batch: warm workers forked from one coordinator, each grading one student at a time.

A worker is a process forked from the warm coordinator (torch imported once, unless no exercise needs it),
with its own sandbox and zygote. It grades one student at a time (grader.course.batch.grade_entry), which writes
that student's files; the coordinator hears only a line of numbers per student. A worker that dies costs
its current student a grader error, and another worker takes its place.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.exercise import Exercise
from grader.course.batch import Done, Setup, Tally, Task, declared_by, grade_entry
from grader.course.classlist import Entry
from grader.judge.catalog import Catalog
from grader.judge.grading import ExpectedCache, MutantCache

Progress = Callable[[Done], None]


@dataclass(slots=True)
class _Worker:
    sock: socket.socket
    pid: int
    #: its place among the workers: as root, its children run as a user of their own for that place
    slot: int
    task: Entry | None = None


def run(entries: Sequence[Entry], setup: Setup, catalog: Catalog, out: Path, fingerprint: str, jobs: int,
        progress: Progress, hide: Sequence[Path] = ()) -> Tally:
    """Grade `entries` with `jobs` warm workers; `progress` hears of each student as soon as they are done.

    `hide` lists the folders no submission may see: the exercises, the other submissions, the reports.
    """
    from grader.run.warm import warm_torch

    lean = _lean(setup, catalog, entries)
    if not lean:
        warm_torch()  # torch once, here: every worker forked below shares it
    tally = Tally()
    queue = list(entries)
    workers: list[_Worker] = []
    selector = selectors.DefaultSelector()

    def start(slot: int) -> None:
        sock, pid = _fork_worker(entries, setup, catalog, out, fingerprint, slot, hide, lean)
        worker = _Worker(sock, pid, slot)
        workers.append(worker)
        selector.register(sock, selectors.EVENT_READ, worker)
        _feed(worker, queue)

    try:
        for slot in range(max(1, min(jobs, len(queue)))):
            start(slot)
        while any(w.task is not None for w in workers):
            for key, _ in selector.select():
                worker: _Worker = key.data
                line = _read_line(worker.sock)
                if line is None:  # the worker died: its student is a grader error; another takes its place
                    selector.unregister(worker.sock)
                    worker.sock.close()
                    os.waitpid(worker.pid, 0)
                    workers.remove(worker)
                    if worker.task is not None:
                        _record(tally, Done(student=worker.task.student.id, outcome="grader-error", score=0.0,
                                            max_score=0.0, seconds=0.0,
                                            error="the worker grading this student died"), progress)
                    if queue:
                        start(worker.slot)
                    continue
                _record(tally, Done.from_line(line), progress)
                _feed(worker, queue)
    finally:
        for worker in workers:
            worker.sock.close()  # a worker reads end of file and leaves
            try:
                os.kill(worker.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            os.waitpid(worker.pid, 0)
        selector.close()
    return tally


def _record(tally: Tally, done: Done, progress: Progress) -> None:
    tally.add(done)
    progress(done)


def _feed(worker: _Worker, queue: list[Entry]) -> None:
    worker.task = queue.pop(0) if queue else None
    if worker.task is not None:
        worker.sock.sendall(Task(student=worker.task.student.id).to_line())


def _read_line(sock: socket.socket) -> bytes | None:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data


def _fork_worker(entries: Sequence[Entry], setup: Setup, catalog: Catalog, out: Path,
                 fingerprint: str, slot: int, hide: Sequence[Path], lean: bool) -> tuple[socket.socket, int]:
    ours, theirs = socket.socketpair()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            ours.close()
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's; it ends us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _worker(theirs, {e.student.id: e for e in entries}, setup, catalog, out, fingerprint, slot, hide, lean)
        except BaseException:  # noqa: BLE001 - say why, then leave without running the parent's cleanup
            traceback.print_exc()
            code = 70
        finally:
            os._exit(code)
    theirs.close()
    return ours, pid


def _lean(setup: Setup, catalog: Catalog, entries: Sequence[Entry]) -> bool:
    """Every exercise the batch grades is an engine exercise, so no process of it needs torch.

    Where the batch names no exercise, each submission names its own: they are read here (the
    coordinator reads every file anyway, for the content hash). One that cannot be read, or names
    nothing known, is graded without torch too. Decided once, so that every student's report is made
    the same way.
    """
    from grader.run.sandbox import runs_lean

    if setup.exercise_ids:
        return runs_lean([catalog.load(i) for i in setup.exercise_ids])
    exercises: list[Exercise] = [e for entry in entries for e in declared_by(entry, catalog)]
    return not exercises or runs_lean(exercises)


def _worker(sock: socket.socket, by_id: dict[str, Entry], setup: Setup, catalog: Catalog, out: Path,
            fingerprint: str, slot: int, hide: Sequence[Path], lean: bool) -> None:
    from grader.run.sandbox import Sandbox

    cache: ExpectedCache = {}
    mutant_cache: MutantCache = {}
    # One slot per concurrent worker: as root, each worker's children run as a user of their own.
    with Sandbox(lean=lean, hide=hide, minimum=setup.isolation) as sandbox, sock.makefile("rb") as tasks:
        for line in tasks:  # ends when the coordinator closes its end, or dies
            entry = by_id[Task.from_line(line).student]
            done = grade_entry(entry, setup, catalog, sandbox, out, fingerprint, cache, mutant_cache)
            sock.sendall(done.to_line())
