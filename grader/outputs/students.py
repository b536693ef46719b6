"""A class as the batch sees it: who a submission belongs to, and what came of grading it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from grader.core.text import file_name
from grader.judge.report import Report

#: graded: the grader ran it (whatever the score); unreadable: handed in, but nothing in it
#: could be graded (not a readable file or notebook, or no file to grade: 0 points); missing:
#: a roster student who handed in nothing (0 points); grader-error: the grader itself failed
#: on it (an infrastructure problem, not the student's); excused: the instructor excused the
#: student from it (no score: it counts neither points nor out of any)
Outcome = Literal["graded", "unreadable", "missing", "grader-error", "excused"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Student:
    """Who a submission belongs to: from the roster
    where there is one, else from the submission's name."""

    #: the LMS user id (LTI userId, Canvas ID), or the submission's name without a roster
    id: str
    name: str
    #: the file or folder in the submissions folder (or the LMS download's name
    #: for the student's files); empty for a roster student who handed in nothing
    submission: str
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    email: str = ""
    #: the student's LTI 1.3 user id (the launch's
    #: `sub`), which AGS scores name; empty: `id` is used
    lti_user_id: str = ""

    def __post_init__(self) -> None:
        # Ids and names often come from file names, which may hold any
        # bytes: made text every format carries. A name is one line in
        # every gradebook and page, so its line breaks become spaces first.
        if "\n" in self.name or "\r" in self.name:
            object.__setattr__(self, "name", " ".join(self.name.split()))
        for field in ("id", "name", "submission"):
            object.__setattr__(self, field, file_name(getattr(self, field)))


@dataclass(frozen=True, slots=True, kw_only=True)
class StudentReport:
    student: Student
    report: Report
    outcome: Outcome = "graded"
    #: for grader errors: what failed, for the instructor
    error: str = ""


@dataclass(frozen=True, slots=True)
class ExerciseColumn:
    """An exercise as a gradebook column."""

    id: str
    title: str
    points: float
