"""The class roster: a CSV of who is in the class,
matched against what the submissions folder holds.

One roster serves every LMS step: `id` is the gradebook's id (what Canvas's gradebook import
matches, the `ID` of gradebook.csv), `lti_user_id` the student's LTI 1.3 user id (`sub`, what `grade
publish lti` sends), and `submission`, `email` and the SIS ids find the student in a download.
Canvas's own gradebook export (Grades > Export) and the gradebook.csv a batch writes read as rosters
too: their `Student`, `ID`, `SIS User ID`, `SIS Login ID` and `Section` columns are its name, id,
SIS ids and section. docs/lms-downloads.md says where each id comes from in Canvas and Moodle.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.lms.downloads import Found
from grader.outputs.students import Student

COLUMNS = (
    "submission",
    "id",
    "lti_user_id",
    "name",
    "sis_user_id",
    "sis_login_id",
    "section",
    "email",
)
#: Canvas's gradebook export (and our gradebook.csv,
#: its import layout): its student columns, as ours
CANVAS_COLUMNS = {
    "Student": "name",
    "ID": "id",
    "SIS User ID": "sis_user_id",
    "SIS Login ID": "sis_login_id",
    "Section": "section",
}
#: a roster larger than this is not a class list
MAX_ROSTER_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Roster:
    students: tuple[Student, ...]
    #: of the file's bytes: shards of one batch must have read the same roster
    sha256: str

    def match(self, found: Found) -> Student | None:
        """The roster's student for what the download found,
        by the `submission` column, then id, email, SIS id."""
        stem = Path(found.origin).stem
        tests = (
            lambda s: (
                bool(s.submission)
                and s.submission.removeprefix("Participant ").strip()
                in (found.origin, stem, found.key)
            ),
            lambda s: s.id == found.key or s.id.removeprefix("Participant ").strip() == found.key,
            lambda s: bool(found.email) and s.email.casefold() == found.email.casefold(),
            lambda s: bool(found.sis_id) and s.sis_user_id == found.sis_id,
        )
        for test in tests:
            hits = [s for s in self.students if test(s)]
            if len(hits) == 1:
                return dataclasses.replace(hits[0], submission=found.origin)
            if len(hits) > 1:  # several rows fit: naming one would be a guess
                return None
        return None


def read_roster(path: Path) -> Roster:
    """Our columns (`id` required; the others optional,
    and may be blank), or a Canvas gradebook export."""
    data, rows = _read_rows(path)
    header = [cell.strip() for cell in rows[0]] if rows else []
    canvas = "id" not in header and {"Student", "ID"} <= set(header)
    names = CANVAS_COLUMNS if canvas else {c: c for c in COLUMNS}
    if "id" not in header and not canvas:
        raise GraderError(
            f"{path}: a roster is a CSV with a header row and an id column (and optionally "
            f"{', '.join(c for c in COLUMNS if c != 'id')}), or Canvas's gradebook export "
            f"(Grades > Export: Student, ID, SIS User ID, SIS Login ID, Section)."
        )
    where = {
        names[cell]: index for index, cell in reversed(list(enumerate(header))) if cell in names
    }
    students: list[Student] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in enumerate(rows[1:], start=2):
        values = {
            key: row[where[key]].strip() if key in where and where[key] < len(row) else ""
            for key in COLUMNS
        }
        if not values["id"]:
            # Canvas's export has a Points Possible row (and
            # Muted, Manual Posting rows): no student in them.
            if canvas or not any(values.values()):
                continue  # or a blank line a spreadsheet left at the end
            raise GraderError(
                f"{path}, line {line}: every row needs an id (the LMS's id for the student)."
            )
        for column in ("id", "submission", "lti_user_id"):
            value = values[column]
            if value and (column, value) in seen:
                raise GraderError(
                    f"{path}, line {line}: {column} {value!r} is on line {seen[column, value]} "
                    "too; each student once, each submission to one student."
                )
            if value:
                seen[column, value] = line
        students.append(
            Student(
                id=values["id"],
                name=values["name"] or values["id"],
                submission=values["submission"],
                sis_user_id=values["sis_user_id"],
                sis_login_id=values["sis_login_id"],
                section=values["section"],
                email=values["email"],
                lti_user_id=values["lti_user_id"],
            )
        )
    return Roster(tuple(students), hashlib.sha256(data).hexdigest())


def _read_rows(path: Path) -> tuple[bytes, list[list[str]]]:
    """The roster's bytes, and its rows as CSV: bounded, and a clear error where unreadable."""
    try:
        if path.stat().st_size > MAX_ROSTER_BYTES:
            raise GraderError(
                f"{path}: larger than {MAX_ROSTER_BYTES // 2**20} MiB; not a class roster."
            )
        data = path.read_bytes()
        rows = list(csv.reader(data.decode("utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderError(f"{path}: cannot read the roster ({exc}).") from None
    return data, rows
