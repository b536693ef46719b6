"""One grading session: the sandbox, the caches, the catalog's freshness, and what a failed grading
is called, behind one method: grade this source as these exercises at this seed.

Every front end opens one and feeds it: `grade FILE` (through `grade` below) a session of one
file, a batch's worker one for its students (grader.course.pool), the course server's worker one
for its jobs (grader.service.work.grading). None of them holds a sandbox or a cache of its own, nor
words of its own for a grading that failed.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Literal, TypedDict, Unpack

from grader.core.errors import GraderError, SpecError
from grader.core.exercise import Device, Exercise
from grader.judge import grading
from grader.judge.catalog import Catalog
from grader.judge.devices import ALL_DEVICES
from grader.judge.expected_cache import ExpectedStore
from grader.judge.grading import ExpectedCache, required_isolation
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import Cause, Report, build_report, not_graded
from grader.run.confine.isolate import Level
from grader.run.read.load import Submission, load_submission
from grader.run.sandbox import Sandbox, policy_of

#: what a student reads where the grader failed: never their fault, whatever failed
GRADER_FAILED = (
    "The grader failed on this submission. This is not your fault: tell your instructor."
)
#: what a student reads where nothing in what they handed in could be graded: the reason follows
UNREADABLE = "Your submission could not be graded: "

#: graded: the grader ran it, whatever the score; unreadable: nothing handed in could be graded
#: (the student's to fix); grader-error: the grader failed (never the student's)
Outcome = Literal["graded", "unreadable", "grader-error"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Grading:
    """What came of grading one source: its report, and how the grading went."""

    report: Report
    outcome: Outcome = "graded"
    #: a grader error's traceback, for the instructor
    error: str = ""
    #: what failed, for a front end that stops on it (`grade FILE`)
    failure: Exception | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """A source as read for grading."""

    submission: Submission
    #: how its report names it
    name: str
    #: the exercises it is graded as
    exercises: Sequence[Exercise]
    #: the front end's own notes, after the submission's
    notes: tuple[str, ...] = ()


def _nothing_to_read(exercises: Sequence[Exercise]) -> Read:
    raise ValueError("this source only names a report: it has nothing to read")


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """What a student handed in, before it is read.

    `name` and `sha256` name a report that could not be graded. `read` reads it as the exercises
    asked for; a GraderError it raises is the student's to fix (unreadable), but for a SpecError,
    which is the course's. A source that only names a report has nothing to read.
    """

    name: str
    sha256: str
    read: Callable[[Sequence[Exercise]], Read] = _nothing_to_read

    @classmethod
    def of(cls, submission: Submission) -> Source:
        """A submission already read: its report names it by its path."""

        def read(exercises: Sequence[Exercise]) -> Read:
            return Read(submission=submission, name=str(submission.path), exercises=exercises)

        return cls(name=str(submission.path), sha256=submission.sha256, read=read)


class GradingSession:
    """A sandbox and what is kept between the submissions graded in it.

    `devices` and `time_limit` hold for every submission. `store`: expected values kept on disk
    between sessions (grader.judge.expected_cache), used only where submissions run confined: with
    isolation `none` one runs as this user and could have written them. `expected`: expected
    values to start with (grader.course.expected_ahead). `catalog`: where exercise ids are read
    from, again whenever an exercise's files change (then the caches start over). `entries`: past
    this many, a cache starts over (a server's worker grades for a whole term).

    `with` the session enters its sandbox and closes it after; a session over a sandbox entered
    elsewhere is used without `with`.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        devices: Sequence[Device] = ALL_DEVICES,
        time_limit: float | None = None,
        store: ExpectedStore | None = None,
        expected: ExpectedCache | None = None,
        catalog: Catalog | None = None,
        entries: int | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.devices = tuple(devices)
        self.time_limit = time_limit
        self._store = store
        self._expected: ExpectedCache = dict(expected or {})
        self._mistakes: MutantCache = {}
        self._catalog = catalog
        self._stamps: dict[str, Stamp] = {}
        self._entries = entries

    def __enter__(self) -> GradingSession:
        self.sandbox.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.sandbox.__exit__(kind, error, trace)

    def grade(
        self,
        source: Submission | Source,
        exercises: Sequence[Exercise | str],
        *,
        seed: int,
        seed_token: str | None = None,
    ) -> Grading:
        """Grade `source` as `exercises` (each one, or its id in the session's catalog) at `seed`.

        Never raises for the source or the grader: a source that cannot be read is `unreadable`,
        any other failure a `grader-error`, each with every check at 0 and its words.
        """
        started = time.perf_counter()
        handed = source if isinstance(source, Source) else Source.of(source)
        seeded = Seeded(seed, seed_token)
        chosen: Sequence[Exercise] = []
        try:
            chosen = self._exercises(exercises)
            try:
                read = handed.read(chosen)
            except SpecError:
                raise  # the course's spec, not the student's file
            except GraderError as exc:
                why = UNREADABLE + str(exc)
                report = not_graded_report(handed, chosen, why, Cause("unreadable"), seeded)
                return Grading(report=report, outcome="unreadable")
            chosen = read.exercises
            graded = grading.grade_submission(
                self.sandbox, read.submission, chosen, seed=seed, **self._settings()
            )
        except Exception as exc:  # noqa: BLE001 - a grader bug costs this report, never the session
            return grader_error(handed, chosen, seeded, traceback.format_exc(), exc)
        report = build_report(
            graded,
            submission=read.name,
            sha256=handed.sha256,
            seed=seed,
            seconds=time.perf_counter() - started,
            notes=(*read.submission.notes, *read.notes),
            seed_token=seed_token,
        )
        return Grading(report=report)

    def _settings(self) -> grading.Settings:
        """What the pipeline grades with: the caches start over where they grew past `entries`."""
        if self._entries is not None and len(self._expected) > self._entries:
            self._expected.clear()
        if self._entries is not None and len(self._mistakes) > self._entries:
            self._mistakes.clear()
        confined = self.sandbox.mode.level != "none"
        return grading.Settings(
            devices=self.devices,
            time_limit=self.time_limit,
            cache=self._expected,
            mutant_cache=self._mistakes,
            store=self._store if confined else None,
        )

    def _exercises(self, asked: Sequence[Exercise | str]) -> list[Exercise]:
        """The exercises asked for; ids from the catalog, read again when any of their files
        changed (then a regrade sees the change, and no cache holds what the old files gave)."""
        ids = [e for e in asked if isinstance(e, str)]
        if ids and self._catalog is not None:
            stamps = {i: _stamp(self._catalog.root / i) for i in ids}
            if any(self._stamps.get(i) != s for i, s in stamps.items()):
                if self._stamps:
                    self._catalog = Catalog(self._catalog.root)
                    self._expected.clear()
                    self._mistakes.clear()
                self._stamps.update(stamps)
        loaded = []
        for exercise in asked:
            if isinstance(exercise, str):
                if self._catalog is None:
                    raise ValueError(
                        f"exercise {exercise!r} asked by id of a session without a catalog"
                    )
                exercise = self._catalog.load(exercise)
            loaded.append(exercise)
        return loaded


@dataclass(frozen=True, slots=True)
class Seeded:
    """The seed a source is graded at, and the token its report shows instead, if any."""

    seed: int
    token: str | None = None


def grader_error(
    source: Source,
    exercises: Sequence[Exercise],
    seeded: Seeded,
    error: str,
    failure: Exception | None = None,
) -> Grading:
    """The grading of a source the grader failed on: every check 0, with the words a student reads,
    and `error` (a traceback, or why) for the instructor."""
    report = not_graded_report(source, exercises, GRADER_FAILED, Cause("grader"), seeded)
    return Grading(report=report, outcome="grader-error", error=error, failure=failure)


def not_graded_report(
    source: Source,
    exercises: Sequence[Exercise],
    why: str,
    cause: Cause,
    seeded: Seeded,
) -> Report:
    """The report of a source that was not graded, for `why`: every check of the exercises 0."""
    return build_report(
        not_graded(exercises, why, cause),
        submission=source.name,
        sha256=source.sha256,
        seed=seeded.seed,
        seed_token=seeded.token,
    )


#: every file under a folder, with when it last changed and its size
Stamp = tuple[tuple[str, int, int], ...]


def _stamp(folder: Path) -> Stamp:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            info = os.stat(os.path.join(root, name))
            found.append((os.path.join(root, name), info.st_mtime_ns, info.st_size))
    return tuple(sorted(found))


class Options(TypedDict, total=False):
    """How `grade` grades its one file."""

    #: the devices to run on (default both; CUDA where this machine has it)
    devices: Sequence[Device]
    time_limit: float | None
    #: folders the submission must not see (the exercises, with their solutions), where it can
    hide: Sequence[Path]
    #: the weakest confinement to accept (default: `required_isolation`); below it, the sandbox
    #: refuses (IsolationRefused, exit 2) before the submission runs
    isolation: Level | None
    #: expected values kept on disk between calls (grader.judge.expected_cache)
    store: ExpectedStore | None


def grade(
    path: Path | Submission,
    exercises: Sequence[Exercise],
    *,
    seed: int = 0,
    seed_token: str | None = None,
    sandbox: Sandbox | None = None,
    **options: Unpack[Options],
) -> Report:
    """Grade the submission at `path` (or one already read) against each exercise, from one run of
    it per device, in a session of its own: in `sandbox` where one is given (entered), else in a
    sandbox of its own. A grading that fails raises what failed, for `grade FILE` to say."""
    submission = path if isinstance(path, Submission) else load_submission(path)
    if sandbox is not None:
        return _raised(
            _session(sandbox, options).grade(
                submission, exercises, seed=seed, seed_token=seed_token
            )
        )
    hide = [*options.get("hide", ()), *{e.folder.parent for e in exercises}]
    minimum = options.get("isolation") or required_isolation(exercises)
    first = policy_of(exercises[0]) if exercises else None
    own = Sandbox(hide=hide, minimum=minimum, first=first)
    with _session(own, options) as session:
        return _raised(session.grade(submission, exercises, seed=seed, seed_token=seed_token))


def _session(sandbox: Sandbox, options: Options) -> GradingSession:
    return GradingSession(
        sandbox,
        devices=options.get("devices", ALL_DEVICES),
        time_limit=options.get("time_limit"),
        store=options.get("store"),
    )


def _raised(graded: Grading) -> Report:
    if graded.failure is not None:
        raise graded.failure
    return graded.report
