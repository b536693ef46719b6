"""Grade one stored submission as a job: the batch's pipeline (grader.judge.grading) in a
warm sandbox, with the submission's own seed, and the report as our JSON for the store.

The bytes come from the store, never a name: the grader writes them to a file it
names itself in a private scratch folder the child cannot see (the source reaches
the child as cells). A submission that cannot be read is that student's "unreadable"
result; a failure of the grader is a grader error, never the student's.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Engine

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.judge.catalog import Catalog
from grader.judge.expected_cache import ExpectedStore
from grader.judge.grading import ExpectedCache, grade_submission
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import Cause, Report, build_report, not_graded
from grader.outputs.formats import render
from grader.service.config import Course
from grader.service.db.store import reading
from grader.service.work.queue import GAVE_UP_FOR_STUDENT, Claimed, Result, Stored, stored

#: expected values and mistakes' runs kept per (exercise,
#: seed): bounded, so a worker's memory stays flat
CACHE_ENTRIES = 64


def fetch(engine: Engine, submission: int) -> Stored:
    with reading(engine) as db:
        return stored(db, submission)


class Grader:
    """What a worker keeps between jobs: the course, its
    catalog (read again when an exercise changes), the caches."""

    def __init__(self, course: Course, sandbox: object, scratch: Path) -> None:
        self.course = course
        self.sandbox = sandbox
        self.scratch = scratch
        self._catalog = course.catalog()
        self._stamp: dict[str, tuple[tuple[str, int, int], ...]] = {}
        self._expected: ExpectedCache = {}
        self._mistakes: MutantCache = {}
        self._store = ExpectedStore.for_user()

    def grade(self, job: Claimed, stored: Stored) -> Result:
        started = time.perf_counter()
        outcome, error = "graded", ""
        exercises: Sequence[Exercise] = ()
        try:
            rules = self.course.assignments.get(stored.assignment)
            if rules is None:
                raise RuntimeError(f"the course no longer has assignment {stored.assignment!r}")
            exercises = self._exercises(rules.exercise_ids)
            report = self._graded(stored, exercises, started)
        except GraderError as exc:  # the submission cannot be read: the student's result, in words
            outcome = "unreadable"
            report = _empty(
                stored,
                exercises,
                f"Your submission could not be graded: {exc}",
                Cause("unreadable"),
            )
        except Exception:  # noqa: BLE001 - a grader bug costs this report, never the worker or the queue
            outcome, error = "grader-error", traceback.format_exc()
            report = _empty(
                stored,
                exercises,
                "The grader failed on this submission. This is not your fault: "
                "your instructor has been told.",
                Cause("grader"),
            )
        return Result(
            job=job.job,
            submission=stored.id,
            outcome=outcome,
            score=report.score,
            max_score=report.max_score,
            public_score=report.public_score,
            report=render("json", report).decode("utf-8"),
            error=error,
            seconds=round(time.perf_counter() - started, 4),
        )

    def _graded(self, stored: Stored, exercises: Sequence[Exercise], started: float) -> Report:
        from grader.run.read.load import load_submission
        from grader.run.read.package import read_package

        if len(self._expected) > CACHE_ENTRIES:
            self._expected.clear()
        if len(self._mistakes) > CACHE_ENTRIES:
            self._mistakes.clear()
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        path = folder / f"submission{stored.suffix}"
        library = exercises[0].library if exercises else None
        try:
            path.write_bytes(stored.content)
            # a library course's upload is a zip of the course's
            # files, read under the caps it was taken under
            submission = (
                read_package(path, library) if library is not None else load_submission(path)
            )
        finally:
            path.unlink(missing_ok=True)
            os.rmdir(folder)
        # torch expected values on disk too, for this machine's
        # other workers and a regrade after a restart
        store = self._store if self.sandbox.mode.level != "none" else None  # type: ignore[attr-defined]
        graded = grade_submission(
            self.sandbox,  # type: ignore[arg-type]
            submission,
            exercises,
            seed=stored.seed,
            cache=self._expected,
            mutant_cache=self._mistakes,
            store=store,
        )
        return build_report(
            graded,
            submission=stored.filename,
            sha256=stored.sha256,
            seed=stored.seed,
            seconds=time.perf_counter() - started,
            notes=submission.notes,
            seed_token=_token(stored),
        )

    def _exercises(self, ids: Sequence[str]) -> list[Exercise]:
        """The exercises, from a catalog read again when any
        of their files changed (then regrades see the change)."""
        stamp = {i: _stamp(self._catalog.root / i) for i in ids}
        if any(self._stamp.get(i) != s for i, s in stamp.items()):
            if self._stamp:
                self._catalog = Catalog(self._catalog.root)
                self._expected.clear()
                self._mistakes.clear()
            self._stamp.update(stamp)
        return [self._catalog.load(i) for i in ids]


def given_up(course: Course, stored: Stored) -> str:
    """The report of a submission whose grading stopped its worker
    MAX_ATTEMPTS times (grader.service.work.queue.reap): every check
    0, the grader's cause, and why in words, as its student reads it."""
    rules = course.assignments.get(stored.assignment)
    try:
        catalog = course.catalog()
        exercises = [catalog.load(i) for i in rules.exercise_ids] if rules is not None else []
    except GraderError:  # the catalog changed under the course: the words still reach the student
        exercises = []
    return render("json", _empty(stored, exercises, GAVE_UP_FOR_STUDENT, Cause("grader"))).decode(
        "utf-8"
    )


def _stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            info = os.stat(os.path.join(root, name))
            found.append((os.path.join(root, name), info.st_mtime_ns, info.st_size))
    return tuple(sorted(found))


def _empty(stored: Stored, exercises: Sequence[Exercise], problem: str, cause: Cause) -> Report:
    return build_report(
        not_graded(exercises, problem, cause),
        submission=stored.filename,
        sha256=stored.sha256,
        seed=stored.seed,
        seed_token=_token(stored),
    )


def _token(stored: Stored) -> str | None:
    """The token a report shows for a seed drawn from the course secret (the
    seed itself would give away the hidden inputs); None for the course's
    one fixed seed, which the report shows as a batch's --seed does."""
    return stored.seed_token if stored.seed_token.startswith("s1-") else None
