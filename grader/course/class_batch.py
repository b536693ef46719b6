"""Grade a class from start to end: find and shard the class, write the
manifest first, run the workers, then write the class files. The CLI
calls `plan_class`, says what it will do, then calls `grade_class`."""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.batch import Batch
from grader.course.classfiles import ClassFiles, write_class_files
from grader.course.classlist import ClassList, Entry, discover, pending, shard
from grader.course.disk import atomic
from grader.course.lms.downloads import Names
from grader.course.manifest import Columns, Manifest, Setup, read_manifest
from grader.course.pool import Progress, Tally, run
from grader.judge.catalog import Catalog
from grader.outputs.html_page import plural
from grader.outputs.layout import CLASS_FILES, DONE, MANIFEST, STUDENTS, folder_of


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassRequest:
    """What the instructor asked for: `grade batch`'s arguments, checked."""

    submissions: Path
    out: Path
    setup: Setup
    roster: Path | None = None
    names: Names | None = None
    #: K/N, or auto (grader.course.classlist.shard_spec)
    shard: str | None = None
    resume: bool = False
    #: start over in an --out that holds an earlier batch's reports
    force: bool = False
    jobs: int = 1
    columns: Columns | None = None
    #: the total's column title (the LMS's assignment), where not the assignment's id
    column: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassPlan:
    """Who this batch grades: the class (or its shard), and those still to grade."""

    request: ClassRequest
    klass: ClassList
    entries: Sequence[Entry]
    todo: Sequence[Entry]
    manifest: Manifest
    fingerprint: str

    @property
    def workers(self) -> int:
        return min(self.request.jobs, max(len(self.todo), 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassGraded:
    plan: ClassPlan
    tally: Tally
    files: ClassFiles
    seconds: float

    @property
    def unfinished(self) -> int:
        """Students with no report: their worker died (--resume grades them)."""
        return len(self.plan.entries) - len(self.files.rows)


def plan_class(request: ClassRequest, catalog: Catalog) -> ClassPlan:
    """Find the class, take its shard, and write the
    manifest, first: a killed shard still says what it owed."""
    from grader import __version__

    setup = request.setup
    for exercise_id in setup.exercise_ids:
        catalog.load(exercise_id)  # a bad spec stops the batch before any work
    klass = discover(
        request.submissions, request.roster, request.names, archives=catalog.library() is not None
    )
    entries, which = klass.entries, None
    if request.shard:
        entries, which = shard(entries, request.shard)
    fingerprint = setup.fingerprint(catalog)
    manifest = Manifest(
        grader_version=__version__,
        setup=fingerprint,
        exercises=setup.exercise_ids,
        assignment=setup.assignment,
        seed=setup.seed,
        devices=setup.devices,
        time_limit=setup.time_limit,
        names=klass.names,
        columns=request.columns or ("total" if setup.assignment or request.column else "exercises"),
        roster_sha256=klass.roster_sha256,
        klass=klass.fingerprint(),
        shard=which,
        students=tuple(e.student.id for e in entries),
        folders=tuple(folder_of(Path(), e.student).name for e in entries),
        not_on_roster=klass.not_on_roster,
        ignored=klass.ignored,
        secret=setup.secret_id,
        column=request.column,
        marked_late=klass.marked_late,
    )
    _one_class(request, manifest, klass)
    request.out.mkdir(parents=True, exist_ok=True)
    atomic(request.out / MANIFEST, manifest.to_json(), durable=True)
    todo = pending(entries, request.out, fingerprint) if request.resume else entries
    return ClassPlan(
        request=request,
        klass=klass,
        entries=entries,
        todo=todo,
        manifest=manifest,
        fingerprint=fingerprint,
    )


def _one_class(request: ClassRequest, manifest: Manifest, klass: ClassList) -> None:
    """An --out holds one class: an earlier batch's reports are gone on with
    (--resume, the same class) or removed (--force), never mixed with another's."""
    out = request.out
    ours = (out / MANIFEST).is_file() or any((out / STUDENTS).glob(f"*/{DONE}"))
    if not ours:
        return
    if request.force:
        shutil.rmtree(out / STUDENTS, ignore_errors=True)
        for name in (MANIFEST, *CLASS_FILES):
            (out / name).unlink(missing_ok=True)
        return
    try:
        earlier: Manifest | None = read_manifest(out)
    except GraderError:
        earlier = None
    what = (
        f"{plural(len(earlier.students), 'student')}, "
        f"{_what(earlier.exercises, earlier.assignment)}"
        if earlier is not None
        else "reports of an older grader"
    )
    if not request.resume:
        raise GraderError(
            f"{out} holds the reports of an earlier batch ({what}): give --resume to go on with "
            "that batch, --force to start over there, or another --out."
        )
    ids = {e.student.id for e in klass.entries}
    if (
        earlier is None
        or (earlier.exercises, earlier.assignment) != (manifest.exercises, manifest.assignment)
        or (earlier.students and not ids & set(earlier.students))
    ):
        now = f"{plural(len(ids), 'student')}, {_what(manifest.exercises, manifest.assignment)}"
        raise GraderError(
            f"{out} holds another class's reports ({what}; this batch: {now}); --resume goes on "
            "only with the same class. Give --force to start over there, or another --out."
        )


def _what(exercises: Sequence[str], assignment: str | None) -> str:
    return (
        f"assignment {assignment}"
        if assignment
        else ", ".join(exercises) or "the exercises each file names"
    )


def grade_class(plan: ClassPlan, catalog: Catalog, progress: Progress) -> ClassGraded:
    """Grade the plan's students with its workers, then
    write the class files from every finished student.

    No submission sees the exercises, the other submissions or the reports.
    """
    request = plan.request
    started = time.monotonic()
    batch = Batch(
        setup=request.setup, catalog=catalog, out=request.out, fingerprint=plan.fingerprint
    )
    hide = [catalog.root, request.submissions, request.out]
    tally = run(plan.todo, batch, request.jobs, progress, hide=hide)
    files = write_class_files(request.out, catalog, plan.manifest)
    return ClassGraded(plan=plan, tally=tally, files=files, seconds=time.monotonic() - started)
