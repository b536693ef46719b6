"""A class's scores as a CSV file that Canvas's gradebook import reads (Grades > Import)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from grader.outputs.students import ExerciseColumn, StudentReport

#: the student columns Canvas expects, in its order; the first assignment column follows "Section"
STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "Points Possible"
#: a cell of a student the instructor excused, as Canvas's gradebook import reads it
EXCUSED = "EX"


def gradebook_csv(
    rows: Sequence[StudentReport], columns: Sequence[ExerciseColumn], *, total: str | None = None
) -> str:
    """The header, a Points Possible row, then one row per student, ordered by id.

    A column is titled by the exercise id alone (or, for `total`, the assignment's): without an
    "(assignment id)" suffix Canvas matches the assignment of exactly that title, and creates one
    if there is none. A cell is the student's points, blank when that exercise was not graded for
    them (Canvas leaves blank cells alone). The `total` column holds the student's points over
    every exercise: one Canvas assignment for the whole assignment, not one per exercise.
    """
    buffer = io.StringIO()
    # "\n", not "\r\n": the text is written by the caller,
    # whose text mode may translate newlines again.
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*STUDENT_COLUMNS, *(c.id for c in columns)])
    writer.writerow([POINTS_POSSIBLE, "", "", "", "", *(number_text(c.points) for c in columns)])
    for row in sorted(rows, key=lambda r: (_id_key(r.student.id), r.student.submission)):
        student = row.student
        writer.writerow(
            [
                cell_text(student.name),
                cell_text(student.id),
                cell_text(student.sis_user_id),
                cell_text(student.sis_login_id),
                cell_text(student.section),
                *_cells(row, columns, total),
            ]
        )
    return buffer.getvalue()


def _cells(row: StudentReport, columns: Sequence[ExerciseColumn], total: str | None) -> list[str]:
    if row.outcome == "grader-error":
        # The grader failed, not the student: a blank keeps whatever score Canvas already has.
        return ["" for _ in columns]
    if row.outcome == "excused":
        # Canvas's import takes EX as "excused": the assignment counts neither points nor out of any
        return [EXCUSED for _ in columns]
    scores = {e.id: e.score for e in row.report.exercises}
    unknown = not scores
    if total is not None:
        scores[total] = row.report.score if row.outcome == "graded" else 0.0
    if row.outcome in ("unreadable", "missing"):
        # Nothing could be graded (or nothing was handed in): 0 for the
        # exercises it was to answer, or for all of them when even that
        # is unknown (it named no exercise and the batch named none).
        return ["0" if unknown or c.id in scores else "" for c in columns]
    return [number_text(scores[c.id]) if c.id in scores else "" for c in columns]


def _id_key(student_id: str) -> tuple[int, int, str]:
    """Numeric ids (Canvas user ids) in numeric order, then the others alphabetically."""
    return (
        (0, int(student_id), student_id)
        if student_id.isascii() and student_id.isdigit()
        else (1, 0, student_id)
    )


def cell_text(text: str) -> str:
    """One line, and never a spreadsheet formula: a name can come from a student's file name."""
    # A line break inside a quoted field is valid CSV, but a name is one line in every gradebook.
    line = " ".join(text.split()) if "\n" in text or "\r" in text else text
    # OWASP's rule against CSV injection: a leading quote
    # makes a cell that starts like a formula plain text.
    return "'" + line if line[:1] in ("=", "+", "-", "@", "\t") else line


def number_text(x: float) -> str:
    """Points as plain decimals, never in exponent form: 10, 2.5, 0.333333."""
    return f"{x + 0.0:.6f}".rstrip("0").rstrip(".")
