"""The shape of summary.json, the class summary: what
grader.outputs.summary writes and summary_html reads.

Rates are fractions in [0, 1] and percentages are in [0, 100]; either is null where its
denominator is 0 (no students, or a maximum of 0 points). Lists are in a fixed order, so
the same reports always give byte-identical JSON, whatever order the batch found them in.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from grader.outputs.attention import Attention
from grader.outputs.error_kinds import ErrorKind
from grader.outputs.students import Outcome


class Counts(TypedDict):
    students: int
    graded: int
    unreadable: int
    missing: int
    grader_errors: int
    #: submissions found that are no roster student's: kept apart, not in the gradebook
    not_on_roster: int


class Bin(TypedDict):
    low: int  # percent, inclusive
    high: int  # percent, exclusive except in the last bin
    count: int


class StudentScore(TypedDict):
    student: str
    name: str
    outcome: Outcome
    #: unreadable and missing: 0 out of the columns' total;
    #: grader-error: null (no score is the student's)
    score: float | None
    max_score: float | None
    percent: float | None
    seconds: float
    #: the file that was graded, as the report names it ("" when there was none)
    file: str
    #: the mistakes diagnosed on the student's failed checks, the most checks first
    mistakes: list[str]
    #: the kinds of error that cost the student checks (timeout, SyntaxError...), most checks first
    errors: list[str]
    #: the first problem of the report, for those that have one
    problem: str
    #: the student's feedback page, relative to the summary
    link: str


class Scores(TypedDict):
    """Statistics over every student with a score in the gradebook (graded,
    unreadable and missing ones); the histogram counts those whose maximum is not 0."""

    max_score: float  # the columns' total
    mean: float | None
    median: float | None
    min: float | None
    max: float | None
    mean_percent: float | None
    scored: int  # the students these statistics are over
    unscored: int  # of those, the ones whose maximum is 0: they have no percentage
    histogram: list[Bin]
    students: list[StudentScore]  # every row, by student id


class ExerciseStats(TypedDict):
    id: str
    title: str
    max_points: float
    graded: int  # graded students with a result for this exercise
    #: what the mean and the full-marks rate are over: those, and the unreadable and missing
    #: students the gradebook gives 0 here (the class's mean is over the same students)
    scored: int
    mean_score: float | None
    mean_percent: float | None
    full_marks: int
    full_marks_rate: float | None


class CheckStats(TypedDict):
    exercise: str
    check: str
    visibility: Literal["public", "hidden"]
    passed: int
    failed: int
    error: int
    #: of the errors, the checks that never ran: the
    #: code did not load, or stopped at an earlier check
    not_run: int
    skipped: int
    #: passed / (passed + failed + error): a check that errored or never ran counts as not passed
    pass_rate: float | None


class FailingCheck(TypedDict):
    """A check that ran and did not pass; checks that
    never ran are left to `error_kinds`, which name why."""

    exercise: str
    check: str
    failing: int  # failed + error
    failed: int  # a wrong answer
    error: int  # raised, crashed or timed out while it ran
    students: int  # graded students for whom it was not skipped
    example_student: str
    example_problem: str


class Slow(TypedDict):
    student: str
    name: str
    seconds: float


class GraderErrorRow(TypedDict):
    student: str
    name: str
    error: str


class Mistake(TypedDict):
    """A diagnosed mistake, and how many students made
    it (named on at least one of their failed checks)."""

    exercise: str
    mistake: str
    #: known-mistake (behaves like one of the exercise's mutants),
    #: localized (one rule, by running it alone) or pattern
    kind: str
    students: int
    #: the checks where it was named, the most frequent first
    checks: list[str]
    example_student: str


class Summary(TypedDict):
    version: str
    counts: Counts
    #: who needs the instructor: grader errors, integrity, unreadable, 0
    #: for a reason they can fix, timeouts, missing, isolation,
    #: strangers, and the entries of the folder skipped as no submission
    attention: list[Attention]
    scores: Scores
    exercises: list[ExerciseStats]
    checks: list[CheckStats]  # exercise by exercise, checks in the spec's order
    failing_checks: list[FailingCheck]  # the TOP most failing, most first
    error_kinds: list[ErrorKind]  # most students first
    slowest: list[Slow]  # the TOP slowest graded submissions
    grader_errors: list[GraderErrorRow]
    mistakes: list[Mistake]
