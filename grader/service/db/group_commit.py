"""Group commit on SQLite: one writer commits the uploads
waiting at that moment in one transaction, one fsync.

SQLite has one writer at a time, and a durable commit (synchronous=FULL) waits for the disk:
uploads that each commit alone queue behind each other's fsync, and 900 sent at once waited
seconds for a receipt. Here each upload's writes run in a savepoint of the one transaction
the writer has open (an upload that fails undoes only its own writes; the others' stay), the
transaction commits once, and only then is each caller told its outcome: a receipt is still
given only for what is on disk. Should the commit fail, every upload of that transaction
fails loudly, as one alone would. One writer also makes a student's uploads one at a time,
so a day's count stays exact. PostgreSQL needs none of this: concurrent commits share its
WAL flushes, and each upload keeps its own transaction there (grader.service.uploads).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from sqlalchemy import Connection, Engine

from grader.service.db.store import writing

T = TypeVar("T")
#: uploads in one transaction at most: the rest wait for
#: the next (a commit holds SQLite's lock that long)
MOST_AT_ONCE = 128
#: seconds an idle writer waits for work before its thread ends (the next upload starts another)
IDLE_SECONDS = 5.0


@dataclass(eq=False)
class _Waiting(Generic[T]):
    """One caller's writes, and what became of them once their transaction ended."""

    work: Callable[[Connection], T]
    done: threading.Event = field(default_factory=threading.Event)
    value: T | None = None
    error: BaseException | None = None


class GroupWriter:
    """The one writer of an engine's uploads in this process:
    `run(work)` returns once `work`'s writes are committed with whatever
    else was waiting, or raises what `work` or the commit raised."""

    def __init__(self, engine: Engine) -> None:
        self._engine = weakref.ref(engine)
        self._ready = threading.Condition()
        self._waiting: list[_Waiting[object]] = []
        self._thread: threading.Thread | None = None
        #: transactions committed, and uploads in them (for the tests and benchmarks)
        self.commits = 0
        self.written = 0

    def run(self, work: Callable[[Connection], T]) -> T:
        waiting: _Waiting[T] = _Waiting(work)
        with self._ready:
            self._waiting.append(waiting)  # type: ignore[arg-type]
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="grader-group-commit", daemon=True
                )
                self._thread.start()
            self._ready.notify()
        waiting.done.wait()
        if waiting.error is not None:
            raise waiting.error
        return waiting.value  # type: ignore[return-value]

    def _serve(self) -> None:
        while True:
            with self._ready:
                if not self._waiting:
                    self._ready.wait(IDLE_SECONDS)
                if not self._waiting:
                    self._thread = None
                    return
                batch, self._waiting = self._waiting[:MOST_AT_ONCE], self._waiting[MOST_AT_ONCE:]
            self._commit(batch)

    def _commit(self, batch: list[_Waiting[object]]) -> None:
        engine = self._engine()
        try:
            if engine is None:
                raise RuntimeError("the store was closed")
            with writing(engine) as db:
                for waiting in batch:
                    savepoint = db.begin_nested()
                    try:
                        waiting.value = waiting.work(db)
                    # that upload's own failure, raised to its caller
                    except Exception as exc:  # noqa: BLE001
                        savepoint.rollback()
                        waiting.error = exc
                    else:
                        savepoint.commit()
            self.commits += 1
            self.written += sum(1 for w in batch if w.error is None)
        # nothing of the transaction is stored: each upload fails
        except BaseException as exc:  # noqa: BLE001
            for waiting in batch:
                if waiting.error is None:
                    waiting.error = exc
        finally:
            for waiting in batch:  # after the commit: a receipt given now holds what is on disk
                waiting.done.set()


_WRITERS: weakref.WeakKeyDictionary[Engine, GroupWriter] = weakref.WeakKeyDictionary()
_MADE = threading.Lock()


def writer_for(engine: Engine) -> GroupWriter:
    """The engine's one writer in this process."""
    with _MADE:
        writer = _WRITERS.get(engine)
        if writer is None:
            writer = _WRITERS[engine] = GroupWriter(engine)
        return writer
