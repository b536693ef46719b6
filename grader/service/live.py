"""course.toml as it is now: the server reads it again when the file changes, checks it whole, and uses it from the
next request on. A broken edit changes nothing: the config in force stays, and the server says what is wrong
(file and line) in its log and on the instructor's page. An edit to what the running processes were started
with (the exercises folder, isolation, the secret file, the database, [lti], the exercises an assignment grades,
the assignments themselves: the workers warmed up for them) is not applied, and the server says a restart is
needed.

`LiveCourse.current()` is the one place the server asks for its rules: deadlines, extensions, late policies,
limits. (Rules set from the pages and kept in the store can join course.toml here.)
"""

from __future__ import annotations

import os
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from typing import Any

from grader.core.errors import GraderError
from grader.service.config import CONFIG, Course, load_course

#: what a change to needs a restart: the processes were started with it ([lti]: the store's platforms are synced
#: with it at the start, which is when a removed deployment's sessions end)
RESTART_KEYS = ("exercises", "isolation", "secret_file", "database", "lti")
#: the least time between two looks at course.toml
LOOK_EVERY = 0.5


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class LiveCourse:
    """The course in force, read again from course.toml when it changes (thread-safe)."""

    def __init__(self, course: Course, say: Callable[[str], None] = _stderr) -> None:
        self._course = course
        self._say = say
        self._path = course.folder / CONFIG
        self._lock = threading.Lock()
        self._stamp = self._stat()
        self._source = self._read()
        #: the file the processes were started with: what RESTART_KEYS are compared with
        self._started = self._source
        self._looked = time.monotonic()
        #: what is wrong with course.toml as it is on disk (a broken edit, or one that needs a restart)
        self.problem: str | None = None

    def current(self) -> Course:
        if time.monotonic() - self._looked < LOOK_EVERY:
            return self._course
        with self._lock:
            self._looked = time.monotonic()
            stamp = self._stat()
            if stamp != self._stamp:
                self._stamp = stamp
                source = self._read()
                if source != self._source:
                    self._source = source
                    self._reload(source)
        return self._course

    def _reload(self, source: bytes) -> None:
        try:
            fresh = load_course(self._course.folder, database=self._course.database)
        except GraderError as exc:
            self._complain(f"{exc} The server keeps the configuration it had; fix the file and it is read again.")
            return
        needs = self._restart_needed(source, fresh)
        if needs:
            self._complain(f"{self._path}: {', '.join(needs)} changed, which needs a restart of grade serve (and "
                           f"of any grade worker); until then none of this edit applies.")
            return
        self._course = fresh
        if self.problem is not None:
            self._say(f"{self._path}: read again; the problem is gone.")
        else:
            self._say(f"{self._path}: read again; the new rules apply from now on.")
        self.problem = None

    def _restart_needed(self, source: bytes, fresh: Course) -> list[str]:
        before, after = _table(self._started), _table(source)
        needs = [key for key in RESTART_KEYS if before.get(key) != after.get(key)]
        graded = {a.id: a.exercise_ids for a in self._course.assignments.values()}
        if graded != {a.id: a.exercise_ids for a in fresh.assignments.values()}:
            needs.append("the assignments or their exercises")
        return needs

    def _complain(self, text: str) -> None:
        if text != self.problem:
            self._say(text)
        self.problem = text

    def _stat(self) -> tuple[int, int, int]:
        try:
            info = os.stat(self._path)
        except OSError:
            return (0, 0, 0)
        return (info.st_mtime_ns, info.st_size, info.st_ino)

    def _read(self) -> bytes:
        try:
            return self._path.read_bytes()
        except OSError:
            return b""


def _table(source: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(source.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
