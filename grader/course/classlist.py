"""Who is graded and on what: the submissions folder
(plain or an LMS download) read against the roster.

Every roster student gets an entry, with the files they handed in or, if none, as missing.
What the folder holds that is no roster student's is kept apart (`not_on_roster`): reported,
never graded into the gradebook. Without a roster every submission found is a student.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.lms.downloads import NAMES, Download, Found, Names, few, read_download
from grader.course.roster import Roster, read_roster
from grader.course.selection import SubmittedFile, digest
from grader.outputs.layout import DONE, folder_of
from grader.outputs.students import Student

NO_SUBMISSION = "No submission was found for this student."
#: where a scheduler says which of its array's tasks this is: (index, first index, step, count).
#: Kubernetes sets no count: the example Job passes its `completions` as JOB_COMPLETIONS.
_SCHEDULERS = (
    (
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_STEP",
        "SLURM_ARRAY_TASK_COUNT",
    ),
    ("JOB_COMPLETION_INDEX", "", "", "JOB_COMPLETIONS"),
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One student and what they handed in."""

    student: Student
    files: tuple[SubmittedFile, ...]
    #: where it is in the submissions folder: a file,
    #: a folder or an LMS's prefix; empty when missing
    origin: str = ""
    #: a roster student for whom nothing was found
    missing: bool = False
    #: the submissions folder, which reports name files relative to
    root: Path = Path()
    #: the LMS's download marked it late (Canvas's _LATE)
    late: bool = False

    @property
    def digest(self) -> str:
        return (
            digest(self.files)
            if not self.missing
            else hashlib.sha256(NO_SUBMISSION.encode()).hexdigest()
        )


@dataclass(frozen=True, slots=True)
class ClassList:
    entries: list[Entry]
    names: Names
    #: what the folder holds that is no roster student's: kept apart, not graded
    not_on_roster: tuple[str, ...] = ()
    #: entries that are no one's submission in this layout
    #: (README.md, a file outside the LMS's naming)
    ignored: tuple[str, ...] = ()
    roster_sha256: str = ""

    @property
    def marked_late(self) -> tuple[str, ...]:
        """The students whose submission the download marked late."""
        return tuple(e.student.id for e in self.entries if e.late)

    def fingerprint(self) -> str:
        """The whole class as found, before any shard:
        every shard of one batch must have seen the same."""
        text = json.dumps(
            [[e.student.id, e.digest] for e in self.entries] + [list(self.not_on_roster)]
        )
        return hashlib.sha256(text.encode()).hexdigest()


def discover(
    folder: Path,
    roster_path: Path | None = None,
    names: Names | None = None,
    *,
    archives: bool = False,
) -> ClassList:
    """One entry per student, sorted by id: the roster's students (missing ones too), or everyone
    found. `archives`: a library course's class, where a zipped repository is a submission."""
    download = read_download(folder, names, archives=archives)
    if not download.found:
        skipped = f" (skipped: {few(download.ignored)})" if download.ignored else ""
        raise GraderError(
            f"{folder}: no submissions in it, read as {download.names} names{skipped}. Give the "
            f"folder the LMS's download unzipped into, or one file or folder per student."
        )
    roster = read_roster(roster_path) if roster_path is not None else None
    matched, not_on_roster = _match(download, roster)
    if roster is not None:
        _check_roster(folder, download, roster, matched, not_on_roster)
    entries = [dataclasses.replace(e, root=folder) for e in matched]
    owners: dict[str, list[str]] = {}
    for entry in entries:
        owners.setdefault(entry.student.id, []).append(entry.origin or "(the roster)")
    doubled = {sid: origins for sid, origins in owners.items() if len(origins) > 1}
    if doubled:
        sid, origins = sorted(doubled.items())[0]
        raise GraderError(
            f"{folder}: {few(origins)} all belong to {sid}"
            + (f" (and {len(doubled) - 1} more students have several)" if len(doubled) > 1 else "")
            + "; keep one submission per student, or fix the roster."
        )
    return ClassList(
        sorted(entries, key=lambda e: e.student.id),
        download.names,
        tuple(not_on_roster),
        tuple(download.ignored),
        roster.sha256 if roster else "",
    )


def _match(download: Download, roster: Roster | None) -> tuple[list[Entry], list[str]]:
    if roster is None:
        return [Entry(_student(f), f.files, f.origin, late=f.late) for f in download.found], []
    entries, strangers = [], []
    matched: set[str] = set()
    for found in download.found:
        student = roster.match(found)
        if student is None:
            strangers.append(found.origin)
            continue
        matched.add(student.id)
        entries.append(Entry(student, found.files, found.origin, late=found.late))
    entries += [Entry(s, (), missing=True) for s in roster.students if s.id not in matched]
    return entries, strangers


def _check_roster(
    folder: Path,
    download: Download,
    roster: Roster,
    entries: Sequence[Entry],
    strangers: Sequence[str],
) -> None:
    """Refuse a roster most of whose students match nothing while the folder
    holds submissions no row matches: the roster's ids are not the download's
    (or --names is not its layout), and grading would zero the class."""
    unmatched = sum(e.missing for e in entries)
    if not strangers or 2 * unmatched <= len(roster.students):
        return
    best: tuple[int, str] = (len(roster.students) - unmatched, "")
    for other in NAMES:
        if other == download.names:
            continue
        try:
            alternative = read_download(folder, other)
        except GraderError:
            continue
        hits = len({s.id for f in alternative.found if (s := roster.match(f)) is not None})
        if hits > best[0]:  # only a layout that matches more of the roster is worth naming
            best = (hits, other)
    ids = few([s.id for s in roster.students], 3)
    said = (
        f"{folder}: {unmatched} of the roster's {len(roster.students)} students match nothing in "
        f"it, read as {download.names} names ({len(download.found)} submissions such as "
        f"{few(strangers, 3)}; the roster's ids are such as {ids})."
    )
    if best[1]:
        raise GraderError(
            f"{said} Read as {best[1]} names, {best[0]} of them match: give --names {best[1]}."
        )
    raise GraderError(
        f"{said} The roster's id column must hold the LMS's ids (docs/lms-downloads.md says "
        "which), or its submission column each student's file or folder."
    )


def _student(found: Found) -> Student:
    return Student(
        id=found.key,
        name=found.name or found.key,
        submission=found.origin,
        email=found.email,
        sis_user_id=found.sis_id,
    )


def shard(entries: Sequence[Entry], spec: str) -> tuple[list[Entry], tuple[int, int]]:
    """`K/N`: every N-th student from the K-th, in student-id order, the
    same on every machine; `auto`: the scheduler's array task (Slurm's
    SLURM_ARRAY_TASK_ID, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX)."""
    k, n = shard_spec(spec)
    return [
        e for i, e in enumerate(sorted(entries, key=lambda e: e.student.id)) if i % n == k - 1
    ], (k, n)


def shard_spec(spec: str, environ: dict[str, str] | None = None) -> tuple[int, int]:
    if spec == "auto":
        return _from_scheduler(dict(os.environ) if environ is None else environ)
    match = re.fullmatch(r"(\d+)/(\d+)", spec)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise GraderError(
            f"--shard {spec}: write K/N with 1 <= K <= N, e.g. --shard 2/4, or --shard auto in a "
            "Slurm job array or a Kubernetes Indexed Job."
        )
    return int(match[1]), int(match[2])


def _from_scheduler(environ: dict[str, str]) -> tuple[int, int]:
    for index_name, base_name, step_name, count_name in _SCHEDULERS:
        if index_name not in environ:
            continue
        if not environ.get(count_name):
            raise GraderError(
                f"--shard auto: {index_name} is set but not {count_name}, how many tasks there "
                "are; set it to the array's size."
            )
        try:
            index, count = int(environ[index_name]), int(environ[count_name])
            base = int(environ.get(base_name) or 0)
            step = int(environ.get(step_name) or 1)
        except ValueError:
            raise GraderError(
                f"--shard auto: {index_name}, {count_name} (and {base_name or 'a first index'}) "
                f"must be whole numbers, not {environ[index_name]!r} and {environ[count_name]!r}."
            ) from None
        k, off = divmod(index - base, step or 1)
        if off or not 0 <= k < count:
            raise GraderError(
                f"--shard auto: task {index} is not one of the {count} tasks of the array from "
                f"{base} by {step} ({index_name}, {count_name})."
            )
        return k + 1, count
    names = ", ".join(s[0] for s in _SCHEDULERS)
    raise GraderError(
        f"--shard auto: none of {names} is set; this is not a Slurm array task or an Indexed Job. "
        f"Give --shard K/N instead."
    )


def pending(entries: Sequence[Entry], out: Path, fingerprint: str) -> list[Entry]:
    """The entries without finished files for this very submission and set-up.

    A student's files are renamed into place whole but not flushed to disk one by one (see
    `batch.write_student`): after a power cut, one may be empty. A student counts as finished
    only when both the marker and the report read back and name the same submission.
    """
    todo = []
    for entry in entries:
        folder = folder_of(out, entry.student)
        try:
            marker = json.loads((folder / DONE).read_text(encoding="utf-8"))
            graded = json.loads((folder / "report.json").read_text(encoding="utf-8"))["submission"][
                "sha256"
            ]
        except (OSError, ValueError, LookupError, TypeError):
            todo.append(entry)
            continue
        if (
            not marker.get("sha256") == graded == entry.digest
            or marker.get("setup") != fingerprint
            or marker.get("student") != dataclasses.asdict(entry.student)
        ):
            # a changed roster row too: its ids are in the student's LTI score and gradebook row
            todo.append(entry)
    return todo
