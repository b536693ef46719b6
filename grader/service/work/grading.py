"""Grade one stored submission as a job: the worker's grading session (grader.judge.session), at
the submission's own seed, and the report as our JSON for the store.

The bytes come from the store, never a name: the grader writes them to a file it names itself in
a private scratch folder the child cannot see (the source reaches the child as cells). What a
grading that failed is called (unreadable, a grader error) is the session's to say.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Engine

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.judge.expected_cache import ExpectedStore
from grader.judge.report import Cause
from grader.judge.session import (
    GradingSession,
    Read,
    Seeded,
    Source,
    grader_error,
    not_graded_report,
)
from grader.outputs.formats import render
from grader.run.sandbox import Sandbox
from grader.service.config import Course
from grader.service.db.store import reading
from grader.service.work.queue import GAVE_UP_FOR_STUDENT, Claimed, Result, Stored, stored

#: expected values and mistakes' runs kept per (exercise, seed): bounded, so a worker's memory
#: stays flat
CACHE_ENTRIES = 64


def fetch(engine: Engine, submission: int) -> Stored:
    with reading(engine) as db:
        return stored(db, submission)


class Grader:
    """What a worker keeps between jobs: the course, and a grading session over its sandbox (the
    catalog, read again when an exercise changes, and the caches)."""

    def __init__(self, course: Course, sandbox: Sandbox, scratch: Path) -> None:
        self.course = course
        self.scratch = scratch
        # torch expected values on disk too, for this machine's other workers and a regrade after
        # a restart
        self.session = GradingSession(
            sandbox,
            store=ExpectedStore.for_user(),
            catalog=course.catalog(),
            entries=CACHE_ENTRIES,
        )

    def grade(self, job: Claimed, stored: Stored) -> Result:
        started = time.perf_counter()
        source, seeded = self._source(stored), Seeded(stored.seed, _token(stored))
        rules = self.course.assignments.get(stored.assignment)
        if rules is None:
            why = f"the course no longer has assignment {stored.assignment!r}"
            graded = grader_error(source, (), seeded, why)
        else:
            graded = self.session.grade(
                source, rules.exercise_ids, seed=seeded.seed, seed_token=seeded.token
            )
        report = graded.report
        return Result(
            job=job.job,
            submission=stored.id,
            outcome=graded.outcome,
            score=report.score,
            max_score=report.max_score,
            public_score=report.public_score,
            report=render("json", report).decode("utf-8"),
            error=graded.error,
            seconds=round(time.perf_counter() - started, 4),
        )

    def _source(self, stored: Stored) -> Source:
        """The stored bytes, read from a file of the grader's own naming."""

        def read(exercises: Sequence[Exercise]) -> Read:
            from grader.run.read.load import load_submission
            from grader.run.read.package import read_package

            folder = Path(tempfile.mkdtemp(dir=self.scratch))
            path = folder / f"submission{stored.suffix}"
            library = exercises[0].library if exercises else None
            try:
                path.write_bytes(stored.content)
                # a library course's upload is a zip of the course's files, read under the caps
                # it was taken under
                if library is not None:
                    submission = read_package(path, library)
                else:
                    submission = load_submission(path)
            finally:
                path.unlink(missing_ok=True)
                os.rmdir(folder)
            return Read(submission=submission, name=stored.filename, exercises=exercises)

        return Source(name=stored.filename, sha256=stored.sha256, read=read)


def given_up(course: Course, stored: Stored) -> str:
    """The report of a submission whose grading stopped its worker MAX_ATTEMPTS times
    (grader.service.work.queue.reap): every check 0, the grader's cause, and why in words, as its
    student reads it."""
    rules = course.assignments.get(stored.assignment)
    try:
        catalog = course.catalog()
        exercises = [catalog.load(i) for i in rules.exercise_ids] if rules is not None else []
    except GraderError:  # the catalog changed under the course: the words still reach the student
        exercises = []
    source = Source(name=stored.filename, sha256=stored.sha256)
    seeded = Seeded(stored.seed, _token(stored))
    report = not_graded_report(source, exercises, GAVE_UP_FOR_STUDENT, Cause("grader"), seeded)
    return render("json", report).decode("utf-8")


def _token(stored: Stored) -> str | None:
    """The token a report shows for a seed drawn from the course secret (the seed itself would
    give away every check's inputs); None for the course's one fixed seed, which the report shows as
    a batch's --seed does."""
    return stored.seed_token if stored.seed_token.startswith("s1-") else None
