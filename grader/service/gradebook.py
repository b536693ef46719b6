"""The counted scores, as the batch's files: a reports folder per assignment
(each student's counted report, the late policy applied, `done.json` last),
then the batch's gradebook.csv and summary, and the AGS publisher over it.

    server/gradebook/<assignment>/
        batch.json, students/<id>/..., gradebook.csv, summary.json, summary.html
        published/lti.json     what grade publish lti sent (only changes are sent again)
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, select

from grader import __version__
from grader.core.exercise import Exercise
from grader.core.seeds import secret_id
from grader.course.batch import write_student
from grader.course.classfiles import ClassFiles, write_class_files
from grader.course.disk import atomic
from grader.course.manifest import Manifest
from grader.judge.report import Cause, Report, build_report, not_graded
from grader.outputs.layout import MANIFEST, STUDENTS, folder_of
from grader.outputs.students import Outcome, Student, StudentReport
from grader.service.config import Course, Rules
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.reports import as_graded, counted_copy, set_copy, stored_report
from grader.service.standing import Counted, count, report_json, rows_of


def roster(engine: Engine) -> list[Student]:
    st = schema.students.c
    with reading(engine) as db:
        found = db.execute(
            select(
                st.id,
                st.name,
                st.email,
                st.sis_user_id,
                st.sis_login_id,
                st.section,
                st.lti_user_id,
            )
            .where(st.role == "student")
            .order_by(st.id)
        ).all()
    return [
        Student(
            id=x.id,
            name=x.name,
            submission="",
            email=x.email,
            sis_user_id=x.sis_user_id,
            sis_login_id=x.sis_login_id,
            section=x.section,
            lti_user_id=x.lti_user_id,
        )
        for x in found
    ]


def counted_rows(engine: Engine, course: Course, rules: Rules) -> Iterator[StudentReport]:
    """Each roster student's counted report for one assignment
    (grader.service.standing.count, the one rule of what counts): graded,
    unreadable, missing (0 points), or excused by the instructor (no score)."""
    exercises: list[Exercise] = [course.catalog().load(i) for i in rules.exercise_ids]
    for student in roster(engine):
        with reading(engine) as db:
            rows = rows_of(db, student.id)
        chosen = count(course, student.id, rows)[rules.id]
        text = (
            report_json(engine, chosen.row.id)
            if chosen.row is not None and chosen.score is not None
            else None
        )
        report = (
            as_graded(stored_report(text), chosen.row.seed_token)
            if text is not None and chosen.row
            else None
        )
        if report is not None and chosen.row is not None:
            student = dataclasses.replace(student, submission=chosen.row.filename)
        yield _counted_report(student, exercises, chosen, report)


def _counted_report(
    student: Student, exercises: list[Exercise], chosen: Counted, report: Report | None
) -> StudentReport:
    """The report the gradebook and the LMS take for what counts: the late policy in its scores,
    or the score the instructor set; excused, or nothing counted, without one of the student's."""
    fix = chosen.correction
    if chosen.excused or report is None or (fix is not None and fix.kind == "score"):
        problem = (
            "No submission was received."
            if chosen.row is None
            else "The submission that counts is still being graded."
        )
        if chosen.excused:
            problem = f"Excused: {chosen.why}."
        base = report or build_report(
            not_graded(exercises, problem, Cause("no-submission")), submission="", sha256="", seed=0
        )
        if chosen.excused:
            return StudentReport(student=student, report=base, outcome="excused")
        if fix is not None and fix.kind == "score":
            return StudentReport(
                student=student, report=set_copy(base, chosen.score or 0.0, chosen.why)
            )
        return StudentReport(student=student, report=base, outcome="missing")
    outcome: Outcome = (
        "unreadable" if chosen.row is not None and chosen.row.outcome == "unreadable" else "graded"
    )
    return StudentReport(
        student=student, report=counted_copy(report, chosen.factor, chosen.why), outcome=outcome
    )


def export(
    engine: Engine, course: Course, rules: Rules, out: Path | None = None
) -> tuple[Path, ClassFiles]:
    """Write the assignment's reports folder and class files; the folder and what was written."""
    folder = out or course.data / "gradebook" / rules.id
    folder.mkdir(parents=True, exist_ok=True)
    students, folders = [], []
    kept = set()
    for row in counted_rows(engine, course, rules):
        write_student(folder, row, fingerprint="course-server")
        students.append(row.student.id)
        folders.append(folder_of(Path(), row.student).name)
        kept.add(folders[-1])
    for stale in (folder / STUDENTS).glob(
        "*"
    ):  # a student no longer on the roster (a token revoked and removed)
        if stale.name not in kept and stale.is_dir():
            shutil.rmtree(stale)
    # the seeds as the server drew them: each its own from
    # the course secret (named by its id), or the fixed one
    drawn = (
        {"seed": course.fixed_seed}
        if course.fixed_seed is not None
        else {"seed": 0, "secret": secret_id(course.secret())}
    )
    manifest = Manifest(
        grader_version=__version__,
        setup="course-server",
        exercises=rules.exercise_ids,
        assignment=rules.id,
        devices=("cpu", "cuda"),
        time_limit=None,
        names="course-server",
        columns="total",
        roster_sha256="",
        klass="",
        shard=None,
        students=tuple(students),
        folders=tuple(folders),
        **drawn,
    )
    atomic(folder / MANIFEST, manifest.to_json(), durable=True)
    return folder, write_class_files(folder, course.catalog(), manifest)
