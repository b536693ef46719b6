"""Who in a graded class needs the instructor, most urgent
first, each student named: the top of summary.html."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypedDict

from grader.judge.report import Report
from grader.outputs.error_kinds import check_error, error_kind
from grader.outputs.layout import feedback_link
from grader.outputs.students import StudentReport

#: a level of isolation under which a run is confined
#: as well as it can be; anything else is worth a look
FULL_ISOLATION = "full"


class Flagged(TypedDict):
    #: the student's id; for a submission not on the roster, empty
    student: str
    name: str
    #: why, in a line
    detail: str
    #: the student's feedback page, relative to the summary; empty when there is none
    link: str


class Attention(TypedDict):
    kind: str
    title: str
    #: what to do about it
    advice: str
    students: list[Flagged]


def needs_attention(
    rows: Sequence[StudentReport],
    not_on_roster: Sequence[str] = (),
    skipped: Sequence[str] = (),
    marked_late: Collection[str] = (),
) -> list[Attention]:
    """Each kind of trouble the class has, with the students it concerns; kinds without any are left
    out.
    `marked_late`: the ids of students whose submission the LMS's download marked late."""
    groups: dict[str, list[Flagged]] = {kind: [] for kind, _, _ in _KINDS}
    for row in rows:  # by student id: the caller sorts them
        for kind, detail in _troubles(row):
            groups[kind].append(_flag(row, detail))
        if row.student.id in marked_late:
            groups["late"].append(_flag(row, "the LMS marked it late"))
    groups["not-on-roster"] = [
        Flagged(student="", name=origin, detail="not on the roster: not graded", link="")
        for origin in not_on_roster
    ]
    groups["skipped"] = [
        Flagged(student="", name=entry, detail="not a submission in the download's layout", link="")
        for entry in skipped
    ]
    return [
        Attention(kind=kind, title=title, advice=advice, students=groups[kind])
        for kind, title, advice in _KINDS
        if groups[kind]
    ]


_KINDS = (
    (
        "grader-error",
        "Grader errors",
        "Not the students' fault: see the traceback under Grader errors below, then "
        "grade them again with --resume.",
    ),
    (
        "integrity",
        "Integrity violations",
        "The run saw its results tampered with: read their reports.",
    ),
    (
        "unreadable",
        "Unreadable",
        "Handed in, but nothing could be graded: the reason is on their page.",
    ),
    (
        "zero",
        "Scored 0 for a reason they can fix",
        "Nothing of theirs could be checked: the file did not load or "
        "stopped, or lacks what the exercise asks for.",
    ),
    (
        "timeout",
        "Timeouts",
        "Their code ran out of time: a loop that never ends, or a very slow machine.",
    ),
    ("missing", "No submission", "On the roster, nothing handed in: they score 0."),
    (
        "isolation",
        "Graded with weaker isolation",
        "Their code was not fully confined, or its memory and process limits "
        "held per process only: grade final submissions as root, in a "
        "container, with a writable cgroup.",
    ),
    (
        "late",
        "Marked late by the LMS",
        "The download marks these submissions late (Canvas's _LATE). A batch applies no late "
        "policy: they are graded and scored as any other. Apply yours in the LMS, or take uploads "
        "on the "
        "course server, whose late policies count them.",
    ),
    (
        "not-on-roster",
        "Not on the roster",
        "Kept apart, not graded: add them to the roster and run again with --resume.",
    ),
    (
        "skipped",
        "Skipped entries",
        "In the submissions folder but not a submission in its layout, so not graded: "
        "check that none is a student's work.",
    ),
)


def _flag(row: StudentReport, detail: str) -> Flagged:
    return Flagged(
        student=row.student.id,
        name=row.student.name,
        detail=_line(detail),
        link=feedback_link(row.student),
    )


def _troubles(row: StudentReport) -> list[tuple[str, str]]:
    report = row.report
    if row.outcome == "grader-error":
        return [("grader-error", (row.error.strip().splitlines() or ["the grader failed"])[-1])]
    if row.outcome == "missing":
        return [("missing", "nothing handed in")]
    if row.outcome == "unreadable":
        problem = report.problems[0] if report.problems else "nothing could be graded"
        return [("unreadable", problem.removeprefix("Your submission could not be graded: "))]
    tampered = integrity_problems(report)
    # one line per student: the first thing refused, and how many more (a sample can trip dozens)
    found = (
        [
            (
                "integrity",
                tampered[0] + (f" (and {len(tampered) - 1} more)" if len(tampered) > 1 else ""),
            )
        ]
        if tampered
        else []
    )
    timed_out = _timed_out(report)
    if timed_out:
        found.append(("timeout", timed_out))
    elif (zero := _zero_reason(report)) is not None:
        found.append(("zero", zero))
    level = isolation(report)
    if level is not None and (
        level[0] != FULL_ISOLATION or (report.isolation and report.isolation.weaker_limits)
    ):
        found.append(("isolation", f"{level[0]}: {level[1]}" if level[1] else level[0]))
    return found


def _timed_out(report: Report) -> str:
    """Where the run ran out of time, or '' if it never did."""
    checks = []
    for exercise in report.exercises:
        for check in exercise.checks:
            if check.status not in ("failed", "error"):
                continue
            found = check_error(check, exercise, report)
            if found and found[0] == "timeout":
                checks.append(check.name)
    if checks:
        return f"ran out of time: {', '.join(checks[:3])}" + (
            f" and {len(checks) - 3} more" if len(checks) > 3 else ""
        )
    if any(error_kind(p) == "timeout" for p in report.problems):
        return "ran out of time"
    return ""


def _zero_reason(report: Report) -> str | None:
    """Why a report scored 0 where the reason is not a wrong answer (a
    file that never loaded, a crash, an exit, a missing class, the
    starter handed in): what its first such check says; None otherwise."""
    if report.max_score <= 0 or report.score > 0:
        return None
    for exercise in report.exercises:
        for check in exercise.checks:
            found = (
                check_error(check, exercise, report)
                if check.status in ("failed", "error")
                else None
            )
            if found is not None:
                return f"{found[0]}: {found[1]}"
    return None


def isolation(report: Report) -> tuple[str, str] | None:
    """(level, description) of the isolation the report was graded under; None where nothing ran."""
    if report.isolation is None:
        return None
    return report.isolation.level, report.isolation.description


def integrity_problems(report: Report) -> list[str]:
    """What the submission did against the grader
    itself: tampering the guard refused, a forged reply."""
    return list(report.integrity)


def _line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
