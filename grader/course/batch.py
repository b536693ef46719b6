"""One student of a batch: graded in the worker's session (grader.judge.session), and all of their
files written as soon as they are graded.

    REPORTS_DIR/batch.json                      what this batch grades: set-up, shard, students
                                                (grader.course.manifest)
    REPORTS_DIR/students/<student>/report.json  our report (then results.json, lti-score.json,
                                                junit.xml, feedback.html)
    REPORTS_DIR/students/<student>/done.json    written last: the student is finished, for this
                                                input
    REPORTS_DIR/gradebook.csv, junit.xml, summary.json, summary.html
                                                the class (grader.course.classfiles)

A worker (grader.course.pool) grades one student at a time and writes that student's files
itself, each atomically (grader.course.disk), `done.json` last. A batch stopped any way at all
(Ctrl-C, kill -9, a CI timeout) and started again with --resume grades only the students without
a `done.json` for the same submission (by content hash) and the same grading set-up, so it ends
with exactly one set of files per student.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.core.text import file_name
from grader.course.classlist import NO_SUBMISSION, Entry
from grader.course.disk import atomic, sweep
from grader.course.manifest import Setup
from grader.course.selection import SubmittedFile, Target, digest_content, load_selected, select
from grader.course.wire import Done
from grader.judge.catalog import Catalog
from grader.judge.report import Cause
from grader.judge.session import (
    GradingSession,
    Read,
    Seeded,
    Source,
    grader_error,
    not_graded_report,
)
from grader.outputs.layout import DONE, FEEDBACK, folder_of
from grader.outputs.students import StudentReport
from grader.run.read.load import Submission


@dataclass(frozen=True, slots=True, kw_only=True)
class Batch:
    """What every student of one batch is graded as, and where their files go."""

    setup: Setup
    catalog: Catalog
    out: Path
    #: the set-up's fingerprint (Setup.fingerprint), which each student's done.json records
    fingerprint: str


def grade_entry(entry: Entry, batch: Batch, session: GradingSession) -> Done:
    """Grade one student and write all of their files; return the few numbers the coordinator
    keeps."""
    started = time.perf_counter()
    exercises = [batch.catalog.load(i) for i in batch.setup.exercise_ids]
    source, seeded = _source(entry, batch)
    if entry.missing:
        why, cause = NO_SUBMISSION, Cause("no-submission")
        report = not_graded_report(source, exercises, why, cause, seeded)
        row = StudentReport(student=entry.student, report=report, outcome="missing")
    else:
        graded = session.grade(source, exercises, seed=seeded.seed, seed_token=seeded.token)
        row = StudentReport(
            student=entry.student, report=graded.report, outcome=graded.outcome, error=graded.error
        )
    try:
        write_student(batch.out, row, batch.fingerprint)
    except Exception:  # noqa: BLE001
        # a format failed on this report: the student's files still say so
        graded_as = [batch.catalog.load(e.id) for e in row.report.exercises]
        failed = grader_error(source, graded_as, seeded, traceback.format_exc())
        row = StudentReport(
            student=entry.student, report=failed.report, outcome=failed.outcome, error=failed.error
        )
        write_student(batch.out, row, batch.fingerprint)
    return Done(
        student=entry.student.id,
        outcome=row.outcome,
        score=row.report.score,
        max_score=row.report.max_score,
        seconds=round(time.perf_counter() - started, 4),
        error=row.error,
    )


def _source(entry: Entry, batch: Batch) -> tuple[Source, Seeded]:
    """What the student handed in, and the seed it is graded at: its files read once for both."""
    setup = batch.setup
    if entry.missing:
        sha256, seeded = entry.digest, Seeded(setup.seed)
    else:
        content = digest_content(entry.files)  # what `entry.digest` hashes
        sha256, seeded = hashlib.sha256(content).hexdigest(), Seeded(*setup.seed_of(content))

    def read(exercises: Sequence[Exercise]) -> Read:
        submission, name = _submission(entry, exercises, setup)
        if not exercises:
            exercises = declared(submission, batch.catalog)
        return Read(submission=submission, name=name, exercises=exercises, notes=setup.seed_notes)

    name = file_name(entry.origin) or entry.student.submission
    return Source(name=name, sha256=sha256, read=read), seeded


def _submission(
    entry: Entry, exercises: Sequence[Exercise], setup: Setup
) -> tuple[Submission, str]:
    """What a student handed in, read for grading, and how the report names it: a library
    course's repository (their folder, or the one archive they handed in), else the one file the
    exercises grade."""
    library = exercises[0].library if exercises else None
    if library is None:
        selection = select(entry.files, Target.of(exercises, setup.assignment))
        if selection.graded is None:
            raise GraderError(selection.problem)
        return load_selected(selection, entry.files), shown(entry, selection.graded)
    from grader.run.read.package import is_package, read_package

    folder = entry.root / entry.origin
    if entry.origin and folder.is_dir() and not folder.is_symlink():
        return read_package(folder, library), file_name(entry.origin)
    if len(entry.files) == 1 and is_package(entry.files[0].path):
        return read_package(entry.files[0].path, library), shown(entry, entry.files[0])
    raise GraderError(
        "this course grades a whole repository: hand it in as its folder, or as one archive of "
        "it (.zip or .tar.gz)."
    )


def declared(submission: Submission, catalog: Catalog) -> list[Exercise]:
    """The exercises a submission names, for a batch that names none: only ones the course
    lists."""
    exercises = catalog.declared(
        submission.declared_exercise, submission.declared_assignment, submission.declares
    )
    if exercises is None:
        raise GraderError(
            "it does not say which exercise it answers (a '# exercise: ID' line, or the "
            "notebook's metadata), and the batch names none."
        )
    return exercises


def declared_by(entry: Entry, catalog: Catalog) -> list[Exercise]:
    """What an entry's graded file names, or nothing when it cannot tell (unreadable, unknown,
    missing)."""
    if entry.missing:
        return []
    try:
        submission = load_selected(select(entry.files, Target()), entry.files)
        return declared(submission, catalog)
    except Exception:  # noqa: BLE001
        # the coordinator reads every submission: none may stop the class
        return []


def write_failure(entry: Entry, batch: Batch, exercises: Sequence[Exercise], why: str) -> Done:
    """A student whose worker was lost every time it graded them: a grader error in their files,
    for the summary."""
    source, seeded = _source(entry, batch)
    failed = grader_error(source, exercises, seeded, why)
    row = StudentReport(
        student=entry.student, report=failed.report, outcome="grader-error", error=why
    )
    write_student(batch.out, row, batch.fingerprint)
    return Done(
        student=entry.student.id,
        outcome="grader-error",
        score=0.0,
        max_score=failed.report.max_score,
        seconds=0.0,
        error=why,
    )


def shown(entry: Entry, file: SubmittedFile) -> str:
    """How a report names the graded file: its path in the submissions folder, as the instructor
    finds it."""
    try:
        return file_name(file.path.relative_to(entry.root).as_posix())
    except ValueError:
        return file.name


def write_student(out: Path, row: StudentReport, fingerprint: str) -> None:
    """All of a student's files, each written atomically, `done.json` last.

    The marker records the hash of the content that was graded (the report's), not the file as it
    is now: a file changed while it was graded is graded again on --resume. Nothing is flushed to
    disk here: a killed process (Ctrl-C, kill -9, a CI timeout) loses nothing that was renamed
    into place, and after a power cut `pending` finds what did not reach the disk. Five flushes
    per student took about a fifth of a batch's time on ext4.
    """
    from grader.outputs.formats import Format, render

    folder = folder_of(out, row.student)
    folder.mkdir(parents=True, exist_ok=True)
    sweep(folder)
    report = row.report
    now = datetime.now(UTC)
    files: tuple[tuple[Format, str], ...] = (
        ("json", "report.json"),
        ("gradescope", "results.json"),
        ("lti", "lti-score.json"),
        ("junit", "junit.xml"),
        ("feedback", FEEDBACK),
    )
    for name, file in files:
        data = render(name, report, student=row.student, outcome=row.outcome, now=now)
        atomic(folder / file, data)
    marker = {
        "sha256": report.sha256,
        "setup": fingerprint,
        "outcome": row.outcome,
        "error": row.error,
        "student": asdict(row.student),
        "graded_at": now.isoformat(timespec="milliseconds"),
    }
    atomic(folder / DONE, json.dumps(marker, indent=2) + "\n")
