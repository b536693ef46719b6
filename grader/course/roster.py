"""The class roster: a CSV of who is in the class, matched against what the submissions folder holds."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.lms import Found
from grader.outputs.students import Student

COLUMNS = ("submission", "id", "name", "sis_user_id", "sis_login_id", "section", "email")


@dataclass(frozen=True, slots=True)
class Roster:
    students: tuple[Student, ...]
    #: of the file's bytes: shards of one batch must have read the same roster
    sha256: str

    def match(self, found: Found) -> Student | None:
        """The roster's student for what the download found, by the `submission` column, then id, email, SIS id."""
        stem = Path(found.origin).stem
        tests = (
            lambda s: bool(s.submission) and s.submission in (found.origin, stem, found.key),
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
    """Columns `id` (required) and `submission,name,sis_user_id,sis_login_id,section,email` (optional, may be blank)."""
    try:
        data = path.read_bytes()
        rows = list(csv.DictReader(data.decode("utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderError(f"{path}: cannot read the roster ({exc}).") from None
    if not rows or "id" not in rows[0]:
        raise GraderError(f"{path}: a roster is a CSV with a header row and an id column (and optionally "
                          f"{', '.join(c for c in COLUMNS if c != 'id')}).")
    students: list[Student] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in enumerate(rows, start=2):
        values = {key: (row.get(key) or "").strip() for key in COLUMNS}
        if not values["id"]:
            if not any(values.values()):
                continue  # a blank line a spreadsheet left at the end
            raise GraderError(f"{path}, line {line}: every row needs an id (the LMS's id for the student).")
        for column in ("id", "submission"):
            value = values[column]
            if value and (column, value) in seen:
                raise GraderError(f"{path}, line {line}: {column} {value!r} is on line {seen[column, value]} too; "
                                  f"each student once, each submission to one student.")
            if value:
                seen[column, value] = line
        students.append(Student(id=values["id"], name=values["name"] or values["id"], submission=values["submission"],
                                sis_user_id=values["sis_user_id"], sis_login_id=values["sis_login_id"],
                                section=values["section"], email=values["email"]))
    return Roster(tuple(students), hashlib.sha256(data).hexdigest())

