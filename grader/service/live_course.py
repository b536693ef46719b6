"""course.toml as it is now: the server reads it again when the file changes, checks it whole,
and uses it from the next request on. A broken edit changes nothing: the config in force stays,
and the server says what is wrong (file and line) in its log and on the instructor's page. An
edit to what the running processes were started with (the exercises folder, isolation, the
secret file, the database, the exercises an assignment grades, the assignments themselves: the
workers warmed up for them) is not applied, and the server says a restart is needed.

The LMS registration that [lti] names (lms.toml) is watched too: an edit to it or to
[lti] applies at once, even while another edit waits for a restart, and the store's
accepted deployments follow it before it does (`on_lti`), so that a removed deployment's
launches are refused and its sessions end within LOOK_EVERY, not at the next restart.

LMS launches fail closed: where the registration cannot be read, lists no deployment, or
course.toml itself cannot be read, the server cannot know which LMS it may trust, so it
admits no launch and ends every launch's session (the course in force has no [lti], and the
store accepts no deployment) until the files read whole and right again; the rest of the
course stays as last read. `problem` says why, in the log and on the instructor's page.

An edit that would release results at once (a deadline moved into the past: a
typo of 12-04 for 12-14) is held, not applied (`hold`): the server keeps the rules it
had, says what the edit would release to how many students in its log and on the
instructor's pages, and applies it once an instructor confirms it there
(grader.service.policy.confirmation), on every server of the course. A restart applies
course.toml as it is: `grade course check` says beforehand which deadlines have passed.

`LiveCourse.current()` is the one place the server asks for its rules: deadlines, extensions, late
policies, limits. (Rules set from the pages and kept in the store can join course.toml here.)
"""

from __future__ import annotations

import os
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from grader.core.errors import GraderError
from grader.service.config import CONFIG, Course, load_course
from grader.service.lti.lti_config import LtiSettings

#: what a change to needs a restart: the processes were started with it
RESTART_KEYS = ("exercises", "isolation", "secret_file", "database")
#: the least time between two looks at course.toml
LOOK_EVERY = 0.5


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class LiveCourse:
    """The course in force, read again from course.toml when it changes (thread-safe)."""

    def __init__(
        self,
        course: Course,
        say: Callable[[str], None] = _stderr,
        on_lti: Callable[[LtiSettings | None], None] | None = None,
        hold: Callable[[Course, Course, bytes], str | None] | None = None,
    ) -> None:
        self._course = course
        self._say = say
        #: what to do with a new [lti] or registration before
        #: it applies (the store's deployments follow it)
        self._on_lti = on_lti
        #: why an edit (the course in force, the fresh one,
        #: course.toml's bytes) must wait, or None: it applies
        self._hold = hold
        #: an edit held until an instructor confirms it: the fresh course and course.toml's bytes
        self.held: tuple[Course, bytes] | None = None
        self._path = course.folder / CONFIG
        #: the registration watched: the one the last course.toml
        #: read named, kept while launches are closed
        self._registration = course.lti.registration if course.lti is not None else None
        self._lock = threading.Lock()
        self._stamp = self._stat()
        self._source = self._read()
        #: the file the processes were started with: what RESTART_KEYS are compared with
        self._started = self._source[0]
        self._looked = time.monotonic()
        #: what is wrong with course.toml as it is on disk
        #: (a broken edit, or one that needs a restart)
        self._wrong: str | None = None
        #: why LMS launches are closed, while they are
        self.closed: str | None = None

    @property
    def problem(self) -> str | None:
        """What the instructor's page says is wrong with the files in force, if anything."""
        found = [text for text in (self._wrong, self.closed) if text]
        return " ".join(found) or None

    def due(self) -> bool:
        """Whether `current` would look at the files again."""
        return time.monotonic() - self._looked >= LOOK_EVERY

    def in_force(self) -> Course:
        """The course in force, without looking at the files (safe on the event loop)."""
        return self._course

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
                    self.held = None
                    self._reload(source[0])
            elif (
                self.held is not None
            ):  # confirmed on a page, of this server or another: it applies now
                self._apply(*self.held)
        return self._course

    def _reload(self, source: bytes) -> None:
        try:
            fresh = load_course(self._course.folder, database=self._course.database)
        except GraderError as exc:
            self._complain(
                f"{exc} The server keeps the rest of the configuration it had; fix the file and it "
                "is read again."
            )
            self._close()
            return
        self._registration = fresh.lti.registration if fresh.lti is not None else None
        needs = self._restart_needed(source, fresh)
        if not self._follow(fresh.lti):
            return
        if (
            needs
        ):  # the LMS registration applies at once all the same: it may have removed a deployment
            self._course = replace(self._course, lti=fresh.lti)
            self._complain(
                f"{self._path}: {', '.join(needs)} changed, which needs a restart of grade serve "
                "(and of any grade worker); until then none of this edit applies but [lti] and "
                "the LMS registration."
            )
            return
        self._apply(fresh, source)

    def _apply(self, fresh: Course, source: bytes) -> None:
        """Apply a checked edit, unless it must wait for an instructor's word (`hold`): then
        only its [lti] and LMS registration apply, as under an edit that waits for a restart."""
        waiting = self._hold(self._course, fresh, source) if self._hold is not None else None
        if waiting is not None:
            self.held = (fresh, source)
            self._course = replace(self._course, lti=fresh.lti)
            self._complain(waiting)
            return
        self.held = None
        self._course = fresh
        if self.problem is not None:
            self._say(f"{self._path}: read again; the problem is gone.")
        else:
            self._say(f"{self._path}: read again; the new rules apply from now on.")
        self._wrong = None

    def _follow(self, lti: LtiSettings | None) -> bool:
        """Have the store accept the deployments of `lti` before it applies; False
        (and the course in force kept) where the store cannot, to be tried again
        at the next look. A registration that reads again opens launches again."""
        if lti != self._course.lti or self.closed is not None:
            if self._on_lti is not None:
                try:
                    self._on_lti(lti)
                except (
                    SQLAlchemyError
                ) as exc:  # the edit waits, and is tried again at the next look
                    self._stamp, self._source = (), ()
                    self._complain(
                        f"{self._path}: the LMS registration changed, and the store could not "
                        f"follow it ({type(exc).__name__}: {exc}); the server keeps the "
                        "configuration it had."
                    )
                    return False
        if self.closed is not None:
            self._say(f"{self._path}: the LMS registration reads again; LMS launches are open.")
        self.closed = None
        return True

    def _close(self) -> None:
        """Admit no LMS launch and end every launch's session: the registration in
        force cannot be trusted (a course that took no launch has none to close)."""
        if self._course.lti is None and self.closed is None and self._registration is None:
            return
        self._course = replace(self._course, lti=None)
        if self.closed is None:
            self.closed = (
                "LMS launches are closed, and their sign-ins ended, until the files read whole "
                "again."
            )
            self._say(self.closed)
        if self._on_lti is not None:
            try:
                self._on_lti(None)
            except (
                SQLAlchemyError
            ):  # this process admits none already; the store is asked again at the next look
                self._stamp, self._source = (), ()

    def _restart_needed(self, source: bytes, fresh: Course) -> list[str]:
        before, after = _table(self._started), _table(source)
        needs = [key for key in RESTART_KEYS if before.get(key) != after.get(key)]
        graded = {a.id: a.exercise_ids for a in self._course.assignments.values()}
        if graded != {a.id: a.exercise_ids for a in fresh.assignments.values()}:
            needs.append("the assignments or their exercises")
        return needs

    def _complain(self, text: str) -> None:
        if text != self._wrong:
            self._say(text)
        self._wrong = text

    def _files(self) -> tuple[Path, ...]:
        """course.toml, and the LMS registration its [lti] named."""
        return (self._path,) if self._registration is None else (self._path, self._registration)

    def _stat(self) -> tuple[tuple[int, int, int], ...]:
        return tuple(_stat(path) for path in self._files())

    def _read(self) -> tuple[bytes, ...]:
        return tuple(_read(path) for path in self._files())


def _stat(path: Path) -> tuple[int, int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (0, 0, 0)
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _table(source: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(source.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
