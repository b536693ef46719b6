"""Grade a class at once: warm workers, each student's files written as soon as graded, resumable, shardable.

    REPORTS_DIR/students/<student>/report.json    our report (then results.json, lti-score.json, junit.xml)
    REPORTS_DIR/students/<student>/done.json      written last: the student is finished, for this input
    REPORTS_DIR/gradebook.csv, junit.xml, summary.json, summary.html    the class, from the files above

A worker is a process forked from the warm coordinator (torch imported once), with its own zygote:
it grades one student at a time and writes that student's files itself, each atomically, `done.json`
last. A batch stopped any way at all (Ctrl-C, kill -9, a CI timeout) and started again with --resume
grades only the students without a `done.json` for the same submission (by content hash) and the same
grading set-up, so it ends with exactly one set of files per student.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import selectors
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grader import __version__
from grader.catalog import Catalog
from grader.errors import GraderError
from grader.formats import ExerciseColumn, Outcome, Student, StudentReport
from grader.grading import ExpectedCache, MutantCache
from grader.isolate import Level
from grader.load import load_submission
from grader.render_json import report_from_dict, report_to_dict
from grader.report import CheckResult, ExerciseResult, Report
from grader.spec import Device, Exercise

SUBMISSION_SUFFIXES = (".py", ".ipynb")
STUDENTS = "students"
DONE = "done.json"
TEMPORARY = ".tmp"  # suffix of a file being written; renamed into place when complete
ROSTER_COLUMNS = ("submission", "id", "name", "sis_user_id", "sis_login_id", "section", "email")


@dataclass(frozen=True, slots=True)
class Entry:
    """One student's submission, as found in the submissions folder."""

    student: Student
    #: the file to grade; None when there is none to grade (see `problem`)
    path: Path | None
    problem: str = ""

    @property
    def digest(self) -> str:
        data = self.path.read_bytes() if self.path is not None else self.problem.encode()
        return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Setup:
    """How every submission of the batch is graded; part of what --resume compares."""

    #: the exercises for every submission; empty: each submission names its own
    exercise_ids: tuple[str, ...]
    seed: int = 0
    devices: tuple[Device, ...] = ("cpu", "cuda")
    time_limit: float | None = None
    #: the weakest isolation to grade under (grader.isolate): a class always has classmates to protect
    isolation: Level = "landlock"

    def fingerprint(self, catalog: Catalog) -> str:
        """Changes when anything that could change a grade changes: the set-up, the specs, the grader."""
        digest = hashlib.sha256(json.dumps([asdict(self), __version__]).encode())
        for exercise_id in sorted(self.exercise_ids):
            folder = catalog.root / exercise_id
            for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
                digest.update(path.relative_to(catalog.root).as_posix().encode() + path.read_bytes())
        return digest.hexdigest()


@dataclass(slots=True)
class Tally:
    """What the coordinator keeps: a few numbers per student, never the reports themselves."""

    graded: int = 0
    unreadable: int = 0
    grader_errors: list[str] = field(default_factory=list)
    skipped: int = 0
    seconds: list[tuple[float, str]] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------
# Finding the students


def discover(folder: Path, roster: Path | None = None) -> list[Entry]:
    """One entry per file (.py, .ipynb) or folder in `folder`, plus roster students who sent nothing."""
    if not folder.is_dir():
        raise GraderError(f"{folder}: not a folder. grade batch takes a folder with one file or folder per student.")
    people = _read_roster(roster) if roster is not None else {}
    entries = []
    seen: set[str] = set()
    for item in sorted(folder.iterdir()):
        if item.name.startswith((".", "_")) or (item.is_file() and item.suffix not in SUBMISSION_SUFFIXES):
            continue
        name = item.stem if item.is_file() else item.name
        student = people.get(item.name) or people.get(name) or Student(id=name, name=name, submission=item.name)
        seen.add(student.submission)
        entries.append(_entry(item, student))
    entries += [Entry(s, None, "No submission was found for this student.")
                for s in people.values() if s.submission not in seen]
    ids = [e.student.id for e in entries]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise GraderError(f"{folder}: several submissions belong to {', '.join(duplicates)}; keep one each.")
    return sorted(entries, key=lambda e: e.student.id)


def _entry(item: Path, student: Student) -> Entry:
    if item.is_file():
        return Entry(student, item)
    candidates = sorted(p for p in item.iterdir() if p.is_file() and p.suffix in SUBMISSION_SUFFIXES)
    if len(candidates) == 1:
        return Entry(student, candidates[0])
    if not candidates:
        return Entry(student, None, f"The folder {item.name}/ holds no .py file and no notebook.")
    names = ", ".join(p.name for p in candidates)
    return Entry(student, None, f"The folder {item.name}/ holds several files to grade ({names}); keep one.")


def _read_roster(path: Path) -> dict[str, Student]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderError(f"{path}: cannot read the roster ({exc}).") from None
    if not rows or not {"submission", "id"} <= set(rows[0]):
        raise GraderError(f"{path}: a roster is a CSV with the columns submission and id (and optionally "
                          f"{', '.join(ROSTER_COLUMNS[2:])}).")
    people = {}
    for line, row in enumerate(rows, start=2):
        if not row.get("submission") or not row.get("id"):
            raise GraderError(f"{path}, line {line}: every row needs a submission and an id.")
        values = {key: (row.get(key) or "").strip() for key in ROSTER_COLUMNS}
        people[values["submission"]] = Student(
            id=values["id"], name=values["name"] or values["id"], submission=values["submission"],
            sis_user_id=values["sis_user_id"], sis_login_id=values["sis_login_id"], section=values["section"],
            email=values["email"])
    return people


def shard(entries: Sequence[Entry], spec: str) -> list[Entry]:
    """`K/N`: every N-th student from the K-th, in student-id order, the same on every machine."""
    match = re.fullmatch(r"(\d+)/(\d+)", spec)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise GraderError(f"--shard {spec}: write K/N with 1 <= K <= N, e.g. --shard 2/4.")
    k, n = int(match[1]), int(match[2])
    return [e for i, e in enumerate(sorted(entries, key=lambda e: e.student.id)) if i % n == k - 1]


def folder_of(out: Path, student: Student) -> Path:
    """A folder name from the student's id that is safe on any file system and unique."""
    safe = re.sub(r"[^A-Za-z0-9._@-]", "_", student.id)[:80].strip(".") or "student"
    if safe != student.id:
        safe += "-" + hashlib.sha256(student.id.encode()).hexdigest()[:8]
    return out / STUDENTS / safe


def pending(entries: Sequence[Entry], out: Path, fingerprint: str) -> list[Entry]:
    """The entries without finished files for this very submission and set-up.

    A student's files are renamed into place whole but not flushed to disk one by one (see
    `write_student`): after a power cut, one may be empty. A student counts as finished only when both
    the marker and the report read back and name the same submission.
    """
    todo = []
    for entry in entries:
        folder = folder_of(out, entry.student)
        try:
            marker = json.loads((folder / DONE).read_text(encoding="utf-8"))
            graded = json.loads((folder / "report.json").read_text(encoding="utf-8"))["submission"]["sha256"]
        except (OSError, ValueError, LookupError, TypeError):
            todo.append(entry)
            continue
        if not marker.get("sha256") == graded == entry.digest or marker.get("setup") != fingerprint:
            todo.append(entry)
    return todo


# ------------------------------------------------------------------------------------------------
# Grading one student (in a worker)


def grade_entry(entry: Entry, setup: Setup, catalog: Catalog, sandbox: Any, out: Path, fingerprint: str,
                cache: ExpectedCache | None = None, mutant_cache: MutantCache | None = None) -> dict[str, Any]:
    """Grade one student and write all of their files; return the few numbers the coordinator keeps."""
    from grader.grading import grade_submission

    started = time.perf_counter()
    exercises: list[Exercise] = [catalog.load(i) for i in setup.exercise_ids]
    outcome: Outcome = "graded"
    error = ""
    try:
        if entry.path is None:
            raise _Unreadable(entry.problem)
        submission = load_submission(entry.path)
        if not exercises:
            exercises = _declared(submission.declared_exercise, submission.declared_assignment, catalog)
        graded = grade_submission(sandbox, submission, exercises, seed=setup.seed, devices=setup.devices,
                                  time_limit=setup.time_limit, cache=cache, mutant_cache=mutant_cache)
        report = Report(submission=entry.student.submission, sha256=submission.sha256, seed=setup.seed,
                        exercises=graded.exercises, grader_version=__version__,
                        seconds=time.perf_counter() - started, problems=graded.problems, notes=submission.notes,
                        output=graded.output, output_truncated=graded.output_truncated)
    except (_Unreadable, GraderError) as exc:
        outcome = "unreadable"
        report = _empty_report(entry, setup, exercises, f"Your submission could not be graded: {exc}")
    except Exception:  # noqa: BLE001 - a grader bug costs this student's report, never the batch
        outcome, error = "grader-error", traceback.format_exc()
        report = _empty_report(entry, setup, exercises, "The grader failed on this submission. This is not "
                               "your fault: your instructor has been told.")
    write_student(out, StudentReport(student=entry.student, report=report, outcome=outcome, error=error), fingerprint)
    return {"student": entry.student.id, "outcome": outcome, "score": report.score, "max_score": report.max_score,
            "seconds": round(time.perf_counter() - started, 4), "error": error}


class _Unreadable(Exception):
    """A submission with nothing to grade."""


def _declared(exercise_id: str | None, assignment_id: str | None, catalog: Catalog) -> list[Exercise]:
    if exercise_id is not None:
        return [catalog.load(exercise_id)]
    if assignment_id is not None:
        return catalog.load_assignment(assignment_id)[1]
    raise _Unreadable("it does not say which exercise it answers (a '# exercise: ID' line, or the notebook's "
                      "metadata), and the batch names none.")


def _empty_report(entry: Entry, setup: Setup, exercises: Sequence[Exercise], problem: str) -> Report:
    """A report for a submission that could not be graded: every check of the exercises scores 0."""
    results = tuple(
        ExerciseResult(id=e.id, title=e.title, checks=tuple(
            CheckResult(name=p.name, about="", status="error", score=0.0, max_score=p.points,
                        problem="Not run: see the problem above.", visibility=p.visibility)
            for p in e.probes))
        for e in exercises)
    return Report(submission=entry.student.submission, sha256=entry.digest, seed=setup.seed, exercises=results,
                  grader_version=__version__, problems=(problem,))


def write_student(out: Path, row: StudentReport, fingerprint: str) -> None:
    """All of a student's files, each written atomically, `done.json` last.

    The marker records the hash of the content that was graded (the report's), not the file as it is
    now: a file changed while it was graded is graded again on --resume. Nothing is flushed to disk
    here: a killed process (Ctrl-C, kill -9, a CI timeout) loses nothing that was renamed into place,
    and after a power cut `pending` finds what did not reach the disk. Five flushes per student took
    about a fifth of a batch's time on ext4.
    """
    from grader.formats.gradescope import gradescope_results
    from grader.formats.junit import junit_xml
    from grader.formats.lti import lti_score

    folder = folder_of(out, row.student)
    folder.mkdir(parents=True, exist_ok=True)
    _sweep(folder)
    report = row.report
    now = datetime.now(UTC)
    _atomic(folder / "report.json", json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n")
    _atomic(folder / "results.json", json.dumps(gradescope_results(report), indent=2) + "\n")
    _atomic(folder / "lti-score.json", json.dumps(lti_score(report, row.student.id, now, outcome=row.outcome),
                                                  indent=2) + "\n")
    _atomic(folder / "junit.xml", junit_xml([(row.student.id, report)]))
    marker = {"sha256": report.sha256, "setup": fingerprint, "outcome": row.outcome, "error": row.error,
              "student": asdict(row.student), "graded_at": now.isoformat(timespec="milliseconds")}
    _atomic(folder / DONE, json.dumps(marker, indent=2) + "\n")


def _atomic(path: Path, text: str, *, durable: bool = False) -> None:
    """Write `path` whole or not at all; `durable`: on disk before it replaces the old one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}{TEMPORARY}")
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write(text)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(temporary, path)


def _sweep(folder: Path) -> None:
    """Remove the half-written files of a run that was killed between writing and renaming.

    Only files of other processes go: this folder's files are being rewritten now, and a live batch never
    writes the same student's folder from two processes.
    """
    ours = f".{os.getpid()}{TEMPORARY}"
    for stale in folder.glob(f".*{TEMPORARY}"):
        if not stale.name.endswith(ours):
            stale.unlink(missing_ok=True)


# ------------------------------------------------------------------------------------------------
# The class files, from the students' files


def finished_students(out: Path) -> Iterator[StudentReport]:
    for done in sorted((out / STUDENTS).glob(f"*/{DONE}")):
        try:
            marker = json.loads(done.read_text(encoding="utf-8"))
            report = report_from_dict(json.loads((done.parent / "report.json").read_text(encoding="utf-8")))
            row = StudentReport(student=Student(**marker["student"]), report=report, outcome=marker["outcome"],
                                error=marker["error"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise GraderError(f"{done.parent}: this student's files are damaged ({exc}); run the same grade batch "
                              f"with --resume to grade them again.") from None
        yield row


def write_class_files(out: Path, catalog: Catalog | None) -> list[StudentReport]:
    """gradebook.csv, junit.xml, summary.json and summary.html, from every finished student in `out`."""
    from grader.formats.gradebook import gradebook_csv
    from grader.formats.junit import junit_xml
    from grader.summary import class_summary, summary_html

    rows = sorted(finished_students(out), key=lambda r: r.student.id)
    columns = _columns(rows, catalog)
    summary = class_summary(rows, columns)
    _sweep(out)
    _atomic(out / "gradebook.csv", gradebook_csv(rows, columns), durable=True)
    _atomic(out / "junit.xml", junit_xml([(r.student.id, r.report) for r in rows]), durable=True)
    _atomic(out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n", durable=True)
    _atomic(out / "summary.html", summary_html(summary), durable=True)
    return rows


def _columns(rows: Sequence[StudentReport], catalog: Catalog | None) -> list[ExerciseColumn]:
    seen: dict[str, ExerciseColumn] = {}
    for row in rows:
        for e in row.report.exercises:
            if e.id not in seen:
                points = catalog.load(e.id).points if catalog is not None and (catalog.root / e.id).is_dir() \
                    else sum(c.max_score for c in e.checks)
                seen[e.id] = ExerciseColumn(e.id, e.title, points)
    return sorted(seen.values(), key=lambda c: c.id)


def merge(folders: Sequence[Path], out: Path, catalog: Catalog | None) -> list[StudentReport]:
    """Join report folders (one per CI shard) into `out`, then write the class files there."""
    import shutil

    owner: dict[str, tuple[Path, str]] = {}
    for folder in folders:
        if not (folder / STUDENTS).is_dir():
            raise GraderError(f"{folder}: no {STUDENTS}/ folder: not the --out of a grade batch.")
        for done in sorted((folder / STUDENTS).glob(f"*/{DONE}")):
            digest = json.loads(done.read_text(encoding="utf-8"))["sha256"]
            name = done.parent.name
            if name in owner and owner[name][1] != digest:
                raise GraderError(f"student {name} was graded in {owner[name][0]} and in {folder} with different "
                                  f"submissions; grade one of them again, or leave one folder out.")
            owner[name] = (folder, digest)
            if folder.resolve() != out.resolve():
                shutil.copytree(done.parent, out / STUDENTS / name, dirs_exist_ok=True)
    return write_class_files(out, catalog)


# ------------------------------------------------------------------------------------------------
# The worker pool


Progress = Callable[[dict[str, Any]], None]


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
    from grader.warm import warm_torch

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
                        _record(tally, {"student": worker.task.student.id, "outcome": "grader-error", "score": 0.0,
                                        "max_score": 0.0, "seconds": 0.0,
                                        "error": "the worker grading this student died"}, progress)
                    if queue:
                        start(worker.slot)
                    continue
                _record(tally, json.loads(line), progress)
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


def _record(tally: Tally, result: dict[str, Any], progress: Progress) -> None:
    if result["outcome"] == "graded":
        tally.graded += 1
    elif result["outcome"] == "unreadable":
        tally.unreadable += 1
    else:
        last = (result["error"].strip().splitlines() or ["unknown"])[-1]
        tally.grader_errors.append(f"{result['student']}: {last}")
    tally.seconds.append((result["seconds"], result["student"]))
    progress(result)


def _feed(worker: _Worker, queue: list[Entry]) -> None:
    worker.task = queue.pop(0) if queue else None
    if worker.task is not None:
        worker.sock.sendall(json.dumps({"student": worker.task.student.id}).encode() + b"\n")


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
    from grader.sandbox import runs_lean

    if setup.exercise_ids:
        return runs_lean([catalog.load(i) for i in setup.exercise_ids])
    exercises: list[Exercise] = []
    for entry in entries:
        if entry.path is None:
            continue
        try:
            submission = load_submission(entry.path)
            exercises += _declared(submission.declared_exercise, submission.declared_assignment, catalog)
        except (_Unreadable, GraderError):
            continue
    return not exercises or runs_lean(exercises)


def _worker(sock: socket.socket, by_id: dict[str, Entry], setup: Setup, catalog: Catalog, out: Path,
            fingerprint: str, slot: int, hide: Sequence[Path], lean: bool) -> None:
    from grader.sandbox import Sandbox

    cache: ExpectedCache = {}
    mutant_cache: MutantCache = {}
    # One slot per concurrent worker: as root, each worker's children run as a user of their own.
    with Sandbox(lean=lean, hide=hide, minimum=setup.isolation) as sandbox, sock.makefile("rb") as tasks:
        for line in tasks:  # ends when the coordinator closes its end, or dies
            entry = by_id[json.loads(line)["student"]]
            result = grade_entry(entry, setup, catalog, sandbox, out, fingerprint, cache, mutant_cache)
            sock.sendall(json.dumps(result).encode() + b"\n")
