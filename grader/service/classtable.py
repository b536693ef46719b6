"""The class table: one row per roster student (name, each assignment's
counted score, late days used, the last submission's time), sorted and
filtered as the instructor's query asks, and the same rows as CSV.

Read in three queries for the whole class (the roster, every submission with its newest
result, which student owns which), then counted per student by grader.service.standing,
under the rules in force: the numbers are the gradebook's. Names come from rosters and
LMSs and are hostile text: the page escapes them, and the CSV never lets a cell start
like a spreadsheet formula (grader.outputs.formats.gradebook.cell_text).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select

from grader.outputs.formats.gradebook import EXCUSED, cell_text, number_text
from grader.service.config import Course
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.standing import Row, count, rows_of

#: what the table sorts by besides an assignment's score ("a:ID")
SORTS = ("name", "id", "section", "late", "last", "submissions")
#: the longest filter text taken from a query (longer
#: is cut: it is matched as a substring, never parsed)
MAX_QUERY = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class Cell:
    """One assignment's counted submission for one student (submission None: nothing counts yet)."""

    submission: int | None
    score: float | None
    max_score: float | None
    why: str
    late: bool
    #: the instructor excused the student from it
    excused: bool = False
    #: what counts follows an instructor's correction (a score set, a submission chosen, an excuse)
    corrected: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassRow:
    student: str
    name: str
    section: str
    #: assignment id -> its cell, in course.toml's order
    cells: dict[str, Cell]
    late_days_used: int
    last_at: float | None
    last_submission: int | None
    submissions: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableQuery:
    """How the instructor asked to see the table: a sort
    key, its order and the filters (all validated)."""

    sort: str = "name"
    descending: bool = False
    #: a substring of the student's id or name (case-insensitive)
    text: str = ""
    section: str = ""
    #: only students with nothing counted for this assignment
    missing: str = ""

    def params(self, **changes: str) -> dict[str, str]:
        """The query string's parameters for this table, with `changes`; defaults left out."""
        found = {
            "sort": self.sort,
            "order": "desc" if self.descending else "asc",
            "q": self.text,
            "section": self.section,
            "missing": self.missing,
            **changes,
        }
        return {
            k: v
            for k, v in found.items()
            if v and (k, v) not in (("sort", "name"), ("order", "asc"))
        }


def table_query(params: Mapping[str, str], course: Course) -> TableQuery:
    """The table a query string asks for; anything it names
    that is not a column or an assignment is ignored."""
    sort = params.get("sort", "name")
    if sort not in SORTS and not (sort.startswith("a:") and sort[2:] in course.assignments):
        sort = "name"
    missing = params.get("missing", "")
    return TableQuery(
        sort=sort,
        descending=params.get("order") == "desc",
        text=params.get("q", "")[:MAX_QUERY].strip(),
        section=params.get("section", "")[:MAX_QUERY],
        missing=missing if missing in course.assignments else "",
    )


def class_rows(engine: Engine, course: Course) -> list[ClassRow]:
    """Every roster student's row, in id order."""
    st, s = schema.students.c, schema.submissions.c
    with reading(engine) as db:
        people = db.execute(
            select(st.id, st.name, st.section).where(st.role == "student").order_by(st.id)
        ).all()
        owners = {ident: student for ident, student in db.execute(select(s.id, s.student_id))}
        every = rows_of(db)
    mine: dict[str, list[Row]] = {}
    for row in every:  # newest first, as rows_of gives them and count expects
        mine.setdefault(owners[row.id], []).append(row)
    return [
        _row(course, person.id, person.name, person.section, mine.get(person.id, []))
        for person in people
    ]


def _row(course: Course, student: str, name: str, section: str, rows: list[Row]) -> ClassRow:
    counted = count(course, student, rows)
    cells = {}
    for rules in course.assignments.values():
        choice = counted[rules.id]
        graded = choice.score is not None and not choice.excused
        cells[rules.id] = Cell(
            submission=choice.row.id if choice.row is not None else None,
            score=choice.score if graded else None,
            max_score=choice.max_score if graded else None,
            why=choice.why,
            late=(graded and choice.factor < 1.0) or choice.late_days_used > 0,
            excused=choice.excused,
            corrected=choice.correction is not None,
        )
    return ClassRow(
        student=student,
        name=name,
        section=section,
        cells=cells,
        late_days_used=sum(c.late_days_used for c in counted.values()),
        last_at=rows[0].received_at if rows else None,
        last_submission=rows[0].id if rows else None,
        submissions=len(rows),
    )


def kept_rows(rows: Sequence[ClassRow], query: TableQuery) -> list[ClassRow]:
    """The rows the query keeps, in its order (ties by
    student id, so the order is the same on every reload)."""
    text = query.text.casefold()
    kept = [
        r
        for r in rows
        if (not text or text in r.student.casefold() or text in r.name.casefold())
        and (not query.section or r.section == query.section)
        and (
            not query.missing
            or (r.cells[query.missing].score is None and not r.cells[query.missing].excused)
        )
    ]
    kept.sort(key=lambda r: r.student)
    # a student without the value (no score, no submission) goes last either way
    keyed = [(_key(r, query.sort), r) for r in kept]
    valued = [(k, r) for k, r in keyed if k is not None]
    valued.sort(key=lambda pair: pair[0], reverse=query.descending)
    return [r for _, r in valued] + [r for k, r in keyed if k is None]


def _key(row: ClassRow, sort: str) -> float | str | None:
    if sort.startswith("a:"):
        return row.cells[sort[2:]].score
    if sort == "late":
        return row.late_days_used
    if sort == "last":
        return row.last_at
    if sort == "submissions":
        return row.submissions
    if sort == "section":
        return row.section.casefold()
    if sort == "id":
        return row.student
    return (row.name or row.student).casefold()


def class_csv(rows: Sequence[ClassRow], course: Course) -> str:
    """The rows as CSV ("\\n" line endings): student, name, section, each assignment's
    counted score (blank where nothing counts, EX where the student is excused), late
    days used, the last submission's time in the course's zone, how many were made."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "student",
            "name",
            "section",
            *course.assignments,
            "late_days_used",
            "last_submission",
            "submissions",
        ]
    )
    for row in rows:
        last = (
            datetime.fromtimestamp(row.last_at, course.timezone).isoformat(timespec="seconds")
            if row.last_at is not None
            else ""
        )
        writer.writerow(
            [
                cell_text(row.student),
                cell_text(row.name),
                cell_text(row.section),
                *(
                    EXCUSED if row.cells[a].excused else _points(row.cells[a].score)
                    for a in course.assignments
                ),
                row.late_days_used,
                last,
                row.submissions,
            ]
        )
    return buffer.getvalue()


def _points(score: float | None) -> str:
    return "" if score is None else number_text(score)
