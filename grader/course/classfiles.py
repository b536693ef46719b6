"""The class's files, made from the students' files:
gradebook.csv, junit.xml, summary.json and summary.html.

They are remade from what is on disk (never from what a run kept in memory), for the students the
manifest lists, so that a batch, a resumed batch and a merge of its shards write the same gradebook.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.disk import atomic, sweep
from grader.course.manifest import Manifest, check_shards, read_manifest
from grader.judge.catalog import Catalog
from grader.outputs.layout import DONE, MANIFEST, STUDENTS
from grader.outputs.render_json import report_from_dict
from grader.outputs.students import ExerciseColumn, Student, StudentReport
from grader.outputs.summary_schema import Summary


@dataclass(frozen=True, slots=True)
class ClassFiles:
    """What the class files were made from, for the CLI to report."""

    rows: list[StudentReport]
    summary: Summary


def finished_students(out: Path, folders: Sequence[str] | None = None) -> Iterator[StudentReport]:
    """Every student of `out` with a done.json (those
    of `folders` only, when given), by folder name."""
    wanted = set(folders) if folders is not None else None
    for done in sorted((out / STUDENTS).glob(f"*/{DONE}")):
        if wanted is not None and done.parent.name not in wanted:
            continue
        try:
            marker = json.loads(done.read_text(encoding="utf-8"))
            report = report_from_dict(
                json.loads((done.parent / "report.json").read_text(encoding="utf-8"))
            )
            row = StudentReport(
                student=Student(**marker["student"]),
                report=report,
                outcome=marker["outcome"],
                error=marker["error"],
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise GraderError(
                f"{done.parent}: this student's files are damaged ({exc}); run the same grade "
                "batch with --resume to grade them again."
            ) from None
        yield row


def write_class_files(
    out: Path, catalog: Catalog | None, manifest: Manifest | None = None
) -> ClassFiles:
    """gradebook.csv, junit.xml, summary.json and
    summary.html, from the finished students of `out`."""
    from grader.outputs.formats.gradebook import gradebook_csv
    from grader.outputs.formats.junit import junit_xml
    from grader.outputs.summary import class_summary
    from grader.outputs.summary_html import summary_html

    manifest = manifest or (read_manifest(out) if (out / MANIFEST).is_file() else None)
    folders = manifest.folders if manifest is not None else None
    rows = sorted(finished_students(out, folders), key=lambda r: r.student.id)
    columns = exercise_columns(rows, catalog)
    total = _total(manifest, columns)
    if total is None or manifest is None or manifest.columns == "exercises":
        gradebook = columns
    else:
        gradebook = [total] if manifest.columns == "total" else [total, *columns]
    summary = class_summary(
        rows,
        columns,
        not_on_roster=manifest.not_on_roster if manifest else (),
        skipped=manifest.ignored if manifest else (),
        marked_late=manifest.marked_late if manifest else (),
    )
    sweep(out)
    atomic(
        out / "gradebook.csv",
        gradebook_csv(rows, gradebook, total=total.id if total else None),
        durable=True,
    )
    atomic(out / "junit.xml", junit_xml([(r.student.id, r.report) for r in rows]), durable=True)
    atomic(
        out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n", durable=True
    )
    atomic(out / "summary.html", summary_html(summary), durable=True)
    return ClassFiles(rows, summary)


def exercise_columns(
    rows: Sequence[StudentReport], catalog: Catalog | None
) -> list[ExerciseColumn]:
    seen: dict[str, ExerciseColumn] = {}
    for row in rows:
        for e in row.report.exercises:
            if e.id not in seen:
                points = (
                    catalog.load(e.id).points
                    if catalog is not None and (catalog.root / e.id).is_dir()
                    else sum(c.max_score for c in e.checks)
                )
                seen[e.id] = ExerciseColumn(e.id, e.title, points)
    return sorted(seen.values(), key=lambda c: c.id)


def _total(manifest: Manifest | None, columns: Sequence[ExerciseColumn]) -> ExerciseColumn | None:
    """The assignment's one column, worth its exercises'
    points together: what the LMS's assignment holds."""
    title = None if manifest is None else manifest.column or manifest.assignment
    if title is None:
        return None
    return ExerciseColumn(title, title, round(sum(c.points for c in columns), 6))


def merge(folders: Sequence[Path], out: Path, catalog: Catalog | None) -> ClassFiles:
    """Join the report folders of one batch's shards
    into `out`, once they prove to be all of them."""
    manifests = check_shards(folders)
    for folder, manifest in zip(folders, manifests, strict=True):
        if folder.resolve() == out.resolve():
            continue
        for name in manifest.folders:
            shutil.copytree(folder / STUDENTS / name, out / STUDENTS / name, dirs_exist_ok=True)
    first = manifests[0]
    pairs: list[tuple[str, str]] = []
    for manifest in manifests:
        pairs += zip(manifest.students, manifest.folders, strict=True)
    pairs.sort()
    whole = Manifest(
        **{
            **{k: getattr(first, k) for k in first.__dataclass_fields__},
            "shard": None,
            "students": tuple(s for s, _ in pairs),
            "folders": tuple(f for _, f in pairs),
        }
    )
    out.mkdir(parents=True, exist_ok=True)
    atomic(out / MANIFEST, whole.to_json(), durable=True)
    return write_class_files(out, catalog, whole)


def rebuild_feedback(reports: Path) -> int:
    """Write every finished student's feedback.html in
    a batch's reports folder again; return how many."""
    from grader.outputs.feedback import feedback_html
    from grader.outputs.layout import FEEDBACK, STUDENTS, folder_of

    if not (reports / STUDENTS).is_dir():
        raise GraderError(f"{reports}: no {STUDENTS}/ folder: not the --out of a grade batch.")
    written = 0
    folders = read_manifest(reports).folders if (reports / MANIFEST).is_file() else None
    # the batch's own students, never another run's left behind
    for row in finished_students(reports, folders):
        atomic(
            folder_of(reports, row.student) / FEEDBACK,
            feedback_html(row.report, row.student, row.outcome),
        )
        written += 1
    return written
