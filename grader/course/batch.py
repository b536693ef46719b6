"""Grade a class at once: each student graded by a warm worker (grader.course.pool), their files written as soon as
graded.

    REPORTS_DIR/batch.json                        what this batch grades: set-up, shard, students
                                                  (grader.course.manifest)
    REPORTS_DIR/students/<student>/report.json    our report (then results.json, lti-score.json, junit.xml,
                                                  feedback.html)
    REPORTS_DIR/students/<student>/done.json      written last: the student is finished, for this input
    REPORTS_DIR/gradebook.csv, junit.xml, summary.json, summary.html    the class (grader.course.classfiles)

A worker grades one student at a time and writes that student's files itself, each atomically, `done.json`
last. A batch stopped any way at all (Ctrl-C, kill -9, a CI timeout) and started again with --resume
grades only the students without a `done.json` for the same submission (by content hash) and the same
grading set-up, so it ends with exactly one set of files per student.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args

from grader import __version__
from grader.core.errors import GraderError, SpecError
from grader.core.exercise import COURSE_SETTINGS, Device, Exercise
from grader.core.seeds import secret_id, submission_seed
from grader.core.text import clean, file_name
from grader.course.classlist import NO_SUBMISSION, Entry
from grader.course.selection import SubmittedFile, Target, digest_content, load_selected, select
from grader.judge.catalog import Catalog
from grader.judge.grading import ExpectedCache
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import Cause, Report, build_report, not_graded
from grader.outputs.layout import DONE, FEEDBACK, folder_of
from grader.outputs.students import Outcome, StudentReport
from grader.run.confine.isolate import Level
from grader.run.read.load import Submission

TEMPORARY = ".tmp"  # suffix of a file being written; renamed into place when complete


@dataclass(frozen=True, slots=True, kw_only=True)
class Setup:
    """How every submission of the batch is graded; part of what --resume compares."""

    #: the exercises for every submission; empty: each submission names its own
    exercise_ids: tuple[str, ...]
    #: the assignment they make up, when the batch was given one
    assignment: str | None = None
    seed: int = 0
    devices: tuple[Device, ...] = ("cpu", "cuda")
    time_limit: float | None = None
    #: the weakest isolation to grade under (grader.run.confine.isolate): a class always has classmates to protect
    isolation: Level = "landlock"
    #: the course secret each submission's seed is drawn from (grader.core.seeds); None: every submission
    #: gets `seed`. Never written anywhere: the manifest and the fingerprint hold its id
    secret: bytes | None = field(default=None, repr=False)

    @property
    def seed_notes(self) -> tuple[str, ...]:
        """What each report says of a batch whose submissions all get one seed."""
        if self.secret is not None:
            return ()
        return (
            f"Graded with seed {self.seed}, the same for every submission of this batch (the course has no "
            f"secret to draw a seed per submission from).",
        )

    @property
    def secret_id(self) -> str | None:
        return secret_id(self.secret) if self.secret is not None else None

    def seed_of(self, content: bytes) -> tuple[int, str | None]:
        """The seed of a submission whose digest is of `content`, and the token its report shows (or None)."""
        if self.secret is None:
            return self.seed, None
        drawn = submission_seed(self.secret, content)
        return drawn.seed, drawn.token

    def fingerprint(self, catalog: Catalog) -> str:
        """Changes when anything that could change a grade changes: the set-up, the specs, the grader."""
        digest = hashlib.sha256(
            json.dumps([{**asdict(self), "secret": self.secret_id}, __version__]).encode()
        )
        folders = [catalog.root / exercise_id for exercise_id in sorted(self.exercise_ids)]
        library = catalog.library()
        if library is not None:  # a library course's reference and given files grade too
            folders += [
                folder for folder in (library.reference, library.starter) if folder is not None
            ]
            digest.update((catalog.root / COURSE_SETTINGS).read_bytes())
        for folder in folders:
            for path in sorted(
                p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            ):
                digest.update(
                    path.relative_to(folder.parent).as_posix().encode() + path.read_bytes()
                )
        return digest.hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """The coordinator to a worker: grade this student."""

    student: str

    def to_line(self) -> bytes:
        return json.dumps({"student": self.student}).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> Task:
        return cls(student=str(json.loads(line)["student"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class Done:
    """A worker to the coordinator: a student is graded and their files are written; the few numbers kept."""

    student: str
    outcome: Outcome
    score: float
    max_score: float
    seconds: float
    #: for grader errors: the traceback, for the instructor
    error: str = ""

    def to_line(self) -> bytes:
        return json.dumps(asdict(self)).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> Done:
        data = json.loads(line)
        if data["outcome"] not in get_args(Outcome):
            raise ValueError(f"a worker sent an unknown outcome {data['outcome']!r}")
        return cls(
            student=str(data["student"]),
            outcome=data["outcome"],
            score=float(data["score"]),
            max_score=float(data["max_score"]),
            seconds=float(data["seconds"]),
            error=str(data["error"]),
        )


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


def grade_entry(
    entry: Entry,
    setup: Setup,
    catalog: Catalog,
    sandbox: Any,
    out: Path,
    fingerprint: str,
    cache: ExpectedCache | None = None,
    mutant_cache: MutantCache | None = None,
) -> Done:
    """Grade one student and write all of their files; return the few numbers the coordinator keeps."""
    from grader.judge.grading import grade_submission

    started = time.perf_counter()
    exercises: list[Exercise] = [catalog.load(i) for i in setup.exercise_ids]
    outcome: Outcome = "graded"
    error = ""
    drawn = _drawn(entry, setup)
    try:
        if entry.missing:
            outcome = "missing"
            report = _empty_report(entry, drawn, exercises, NO_SUBMISSION, Cause("no-submission"))
        else:
            try:  # everything here reads what the student handed in: a failure is theirs to fix
                submission, graded_file = _submission(entry, exercises, setup, catalog)
                if not exercises:
                    exercises = declared(submission, catalog)
            except SpecError:
                raise  # the course's spec, not the student's file
            except GraderError as exc:
                raise _Unreadable(str(exc)) from None
            graded = grade_submission(
                sandbox,
                submission,
                exercises,
                seed=drawn.seed,
                devices=setup.devices,
                time_limit=setup.time_limit,
                cache=cache,
                mutant_cache=mutant_cache,
            )
            report = build_report(
                graded,
                submission=graded_file,
                sha256=drawn.sha256,
                seed=drawn.seed,
                seed_token=drawn.token,
                seconds=time.perf_counter() - started,
                notes=(*submission.notes, *setup.seed_notes),
            )
    except _Unreadable as exc:
        outcome = "unreadable"
        report = _empty_report(
            entry,
            drawn,
            exercises,
            f"Your submission could not be graded: {exc}",
            Cause("unreadable"),
        )
    except Exception:  # noqa: BLE001 - a grader bug (or the course's spec) costs this student's report, never the batch
        outcome, error = "grader-error", traceback.format_exc()
        report = _empty_report(entry, drawn, exercises, _GRADER_FAILED, Cause("grader"))
    try:
        write_student(
            out,
            StudentReport(student=entry.student, report=report, outcome=outcome, error=error),
            fingerprint,
        )
    except Exception:  # noqa: BLE001 - a format failed on this report: the student's files still say so
        outcome, error = "grader-error", traceback.format_exc()
        report = _empty_report(entry, drawn, exercises, _GRADER_FAILED, Cause("grader"))
        write_student(
            out,
            StudentReport(student=entry.student, report=report, outcome=outcome, error=error),
            fingerprint,
        )
    return Done(
        student=entry.student.id,
        outcome=outcome,
        score=report.score,
        max_score=report.max_score,
        seconds=round(time.perf_counter() - started, 4),
        error=error,
    )


def _submission(
    entry: Entry, exercises: Sequence[Exercise], setup: Setup, catalog: Catalog
) -> tuple[Submission, str]:
    """What a student handed in, read for grading, and how the report names it: a library course's repository
    (their folder, or the one archive they handed in), else the one file the exercises grade."""
    library = exercises[0].library if exercises else None
    if library is None:
        selection = select(entry.files, Target.of(exercises, setup.assignment))
        if selection.graded is None:
            raise _Unreadable(selection.problem)
        return load_selected(selection, entry.files), shown(entry, selection.graded)
    from grader.run.read.package import is_package, read_package

    folder = entry.root / entry.origin
    if entry.origin and folder.is_dir() and not folder.is_symlink():
        return read_package(folder, library), file_name(entry.origin)
    if len(entry.files) == 1 and is_package(entry.files[0].path):
        return read_package(entry.files[0].path, library), shown(entry, entry.files[0])
    raise _Unreadable(
        "this course grades a whole repository: hand it in as its folder, or as one archive of it "
        "(.zip or .tar.gz)."
    )


_GRADER_FAILED = (
    "The grader failed on this submission. This is not your fault: your instructor has been told."
)


class _Unreadable(Exception):
    """A submission with nothing to grade."""


def declared(submission: Submission, catalog: Catalog) -> list[Exercise]:
    """The exercises a submission names, for a batch that names none: only ones the course lists."""
    exercises = catalog.declared(
        submission.declared_exercise, submission.declared_assignment, submission.declares
    )
    if exercises is None:
        raise _Unreadable(
            "it does not say which exercise it answers (a '# exercise: ID' line, or the notebook's "
            "metadata), and the batch names none."
        )
    return exercises


def declared_by(entry: Entry, catalog: Catalog) -> list[Exercise]:
    """What an entry's graded file names, or nothing when it cannot tell (unreadable, unknown, missing)."""
    if entry.missing:
        return []
    try:
        submission = load_selected(select(entry.files, Target()), entry.files)
        return declared(submission, catalog)
    except Exception:  # noqa: BLE001 - the coordinator reads every submission: none may stop the class
        return []


def write_failure(
    entry: Entry, setup: Setup, exercises: Sequence[Exercise], out: Path, fingerprint: str, why: str
) -> Done:
    """A student whose worker was lost every time it graded them: a grader error in their files, for the summary."""
    report = _empty_report(entry, _drawn(entry, setup), exercises, _GRADER_FAILED, Cause("grader"))
    write_student(
        out,
        StudentReport(student=entry.student, report=report, outcome="grader-error", error=why),
        fingerprint,
    )
    return Done(
        student=entry.student.id,
        outcome="grader-error",
        score=0.0,
        max_score=report.max_score,
        seconds=0.0,
        error=why,
    )


def shown(entry: Entry, file: SubmittedFile) -> str:
    """How a report names the graded file: its path in the submissions folder, as the instructor finds it."""
    try:
        return file_name(file.path.relative_to(entry.root).as_posix())
    except ValueError:
        return file.name


@dataclass(frozen=True, slots=True)
class _Drawn:
    """What a report names a submission by, and the seed it is graded with: its files read once for both."""

    sha256: str
    seed: int
    token: str | None


def _drawn(entry: Entry, setup: Setup) -> _Drawn:
    if entry.missing:
        return _Drawn(entry.digest, setup.seed, None)
    content = digest_content(entry.files)  # what `entry.digest` hashes
    seed, token = setup.seed_of(content)
    return _Drawn(hashlib.sha256(content).hexdigest(), seed, token)


def _empty_report(
    entry: Entry, drawn: _Drawn, exercises: Sequence[Exercise], problem: str, cause: Cause
) -> Report:
    """A report for a submission that could not be graded: every check of the exercises scores 0."""
    return build_report(
        not_graded(exercises, problem, cause),
        submission=file_name(entry.origin) or entry.student.submission,
        sha256=drawn.sha256,
        seed=drawn.seed,
        seed_token=drawn.token,
    )


def write_student(out: Path, row: StudentReport, fingerprint: str) -> None:
    """All of a student's files, each written atomically, `done.json` last.

    The marker records the hash of the content that was graded (the report's), not the file as it is
    now: a file changed while it was graded is graded again on --resume. Nothing is flushed to disk
    here: a killed process (Ctrl-C, kill -9, a CI timeout) loses nothing that was renamed into place,
    and after a power cut `pending` finds what did not reach the disk. Five flushes per student took
    about a fifth of a batch's time on ext4.
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
        atomic(
            folder / file, render(name, report, student=row.student, outcome=row.outcome, now=now)
        )
    marker = {
        "sha256": report.sha256,
        "setup": fingerprint,
        "outcome": row.outcome,
        "error": row.error,
        "student": asdict(row.student),
        "graded_at": now.isoformat(timespec="milliseconds"),
    }
    atomic(folder / DONE, json.dumps(marker, indent=2) + "\n")


def atomic(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Write `path` whole or not at all; `durable`: on disk before it replaces the old one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}{TEMPORARY}")
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except (
            UnicodeEncodeError
        ):  # a file name of any bytes, or a submission's text, in a class file: never a crash
            raw = clean(data).encode("utf-8")
    else:
        raw = data
    with temporary.open("wb") as handle:
        handle.write(raw)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(temporary, path)


def sweep(folder: Path) -> None:
    """Remove the half-written files of a run that was killed between writing and renaming.

    Only files of other processes go: this folder's files are being rewritten now, and a live batch never
    writes the same student's folder from two processes.
    """
    ours = f".{os.getpid()}{TEMPORARY}"
    for stale in folder.glob(f".*{TEMPORARY}"):
        if not stale.name.endswith(ours):
            stale.unlink(missing_ok=True)
