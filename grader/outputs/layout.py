"""Where a batch's files live in its reports folder,
so that every module names them the same way."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from grader.outputs.students import Student

STUDENTS = "students"
#: written last in a student's folder: the student is finished, for this input and set-up
DONE = "done.json"
#: the page a student reads, in their folder
FEEDBACK = "feedback.html"
#: what the batch was asked to do: its set-up, its shard and its students (grader.course.manifest)
MANIFEST = "batch.json"
#: what a batch writes for the whole class, made again from the students' folders
CLASS_FILES = ("gradebook.csv", "junit.xml", "summary.json", "summary.html")


def folder_of(out: Path, student: Student) -> Path:
    """A folder name from the student's id that is safe on any file system and unique."""
    safe = re.sub(r"[^A-Za-z0-9._@-]", "_", student.id)[:80].strip(".") or "student"
    if safe != student.id:
        safe += "-" + hashlib.sha256(student.id.encode()).hexdigest()[:8]
    return out / STUDENTS / safe


def feedback_link(student: Student) -> str:
    """The student's feedback page, relative to the reports folder (where summary.html is)."""
    return folder_of(Path(), student).joinpath(FEEDBACK).as_posix()
