"""A student's status, as they may read it: each assignment's deadline, limits and counted
submission (`grade submit --status` and their page), and each submission's line in their
history, which after the deadline says what it counts (its score after the late policy, and
whether it is the one that counts), before it the public checks' points alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.service.config import Course
from grader.service.policy import clock
from grader.service.policy.release import is_released
from grader.service.standing import Counted, Row, late_now, late_rule, standing, worths
from grader.service.uploads import used_today
from grader.service.work import queue

if TYPE_CHECKING:
    from grader.service.state import State


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """What a history says of one submission now."""

    #: how late it counts (grader.service.standing.late_now)
    days_late: float
    #: its assignment's hidden checks are out (always, for an instructor)
    hidden_released: bool
    #: once they are: its score after the late policy, whether it is the one that counts, and why
    score: float | None = None
    counts: bool = False
    late_policy: str = ""

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "days_late": self.days_late,
            "hidden_released": self.hidden_released,
        }
        if self.score is not None:
            found.update(score=self.score, counts=self.counts, late_policy=self.late_policy)
        return found


def history_lines(
    course: Course,
    student: str,
    rows: Sequence[Row],
    every: Sequence[Row],
    instructor: bool = False,
) -> Iterator[tuple[Row, HistoryLine]]:
    """Each of `rows`, with what a history shows of it: before its hidden checks
    are out, the public points alone. `every`: all the student's submissions,
    which what one counts depends on (late days are spent across them)."""
    worth = worths(course, student, every)
    for row in rows:
        rules = course.assignments.get(row.assignment)
        late = late_now(course, rules, student, row)
        out = instructor or is_released(course, student, row.assignment)
        if out and row.id in worth:
            counted, counts = worth[row.id]
            yield row, HistoryLine(late, out, counted.score, counts, counted.why)
        else:
            yield row, HistoryLine(late, out)


def status_of(state: State, student: str) -> dict[str, object]:
    """A student's standing as `grade submit --status` and their page
    show it, every moment also in the course's zone (`*_shown`)."""
    course = state.course
    counted = standing(state.engine, course, student)
    assignments = []
    spent = 0
    for rules in course.assignments.values():
        used = used_today(state.engine, student, rules.id, course)
        choice = counted[rules.id]
        spent += choice.late_days_used
        deadline = rules.deadline_for(student)
        closes = course.closes_for(rules, student)
        released = is_released(course, student, rules.id)
        assignments.append(
            {
                "id": rules.id,
                "exercises": list(rules.exercise_ids),
                "opens": rules.opens,
                "deadline": deadline,
                "closes": closes,
                "opens_shown": clock.shown(rules.opens, course),
                "deadline_shown": clock.shown(deadline, course),
                "closes_shown": clock.shown(closes, course),
                "extended": rules.extended(student),
                "late": rules.late,
                "late_rule": late_rule(rules),
                "counts": rules.counts,
                "submitted_today": used,
                "left_today": max(rules.per_day - used, 0) if rules.per_day else None,
                "hidden_released": released,
                "counted": _counted(choice, released),
            }
        )
    return {
        "student": student,
        "course": course.name,
        "timezone": clock.shown_zone(course),
        "assignments": assignments,
        "late_days_left": max(course.late_days - spent, 0) if course.late_days else None,
        "queue": queue.depth(state.engine),
    }


def _counted(choice: Counted, released: bool) -> dict[str, object]:
    """What counts, as a student may see it now. Before their deadline,
    which submission counts (and its total) would tell how the hidden checks
    went; an instructor's score or excuse tells nothing of them, and shows."""
    fix = choice.correction
    if released or (fix is not None and fix.kind in ("score", "excused")):
        return {
            "submission": choice.row.id if choice.row else None,
            "score": choice.score,
            "max_score": choice.max_score,
            "why": choice.why,
            "excused": choice.excused,
        }
    if fix is not None:
        because = f": {fix.reason}" if fix.reason else ""
        return {
            "submission": fix.submission,
            "score": None,
            "max_score": None,
            "excused": False,
            "why": f"chosen by your instructor{because}; its score shows after the deadline",
        }
    return {
        "submission": None,
        "score": None,
        "max_score": None,
        "excused": False,
        "why": "decided at the deadline, with the hidden checks",
    }
