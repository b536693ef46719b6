"""When a student's hidden results come out, and what a change would release.

One rule: a student's hidden checks (and with them which submission counts, and its score) are
out once their own deadline has passed, their extension included. Before it they see the public
checks only. So moving a deadline into the past releases them at once to every student whose own
deadline that passes, and so does sending the counted scores to the LMS before a deadline (the
LMS shows a score the hidden checks are in). A page that would do either asks first, and says to
how many students: `newly_released` for a change of the rules, `not_yet_released` for a publish.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence

from grader.service.config import Course

#: the students a message names before it says "and N more"
NAMED = 5


def is_released(course: Course, student: str, assignment: str, now: float | None = None) -> bool:
    """Whether the hidden checks of `student`'s `assignment` are out: their own
    deadline (extension included) passed. Without a deadline they never are."""
    rules = course.assignments.get(assignment)
    deadline = rules.deadline_for(student) if rules is not None else None
    return deadline is not None and (time.time() if now is None else now) >= deadline


def not_yet_released(
    course: Course,
    assignment: str,
    students: Iterable[str],
    now: float | None = None,
) -> list[str]:
    """The students whose hidden results of `assignment` are
    not out yet: sending their scores now releases them."""
    moment = time.time() if now is None else now
    return sorted(s for s in students if not is_released(course, s, assignment, moment))


def newly_released(
    before: Course,
    after: Course,
    students: Iterable[str],
    now: float | None = None,
) -> dict[str, list[str]]:
    """For each assignment, the students whose hidden results `after`'s rules
    release now and `before`'s did not (a deadline moved into the past, an
    extension withdrawn or set to a moment gone by); empty: it releases nothing."""
    moment = time.time() if now is None else now
    people = sorted(set(students))
    found: dict[str, list[str]] = {}
    for assignment in after.assignments:
        fresh = [
            s
            for s in people
            if is_released(after, s, assignment, moment)
            and not is_released(before, s, assignment, moment)
        ]
        if fresh:
            found[assignment] = fresh
    return found


def in_words(released: Mapping[str, Sequence[str]]) -> str:
    """What is released, for a page that asks first: "hw1
    to 30 students (s1, s2, s3, s4, s5 and 25 more)"."""
    parts = []
    for assignment, students in released.items():
        named = ", ".join(students[:NAMED]) + (
            f" and {len(students) - NAMED} more" if len(students) > NAMED else ""
        )
        parts.append(
            f"{assignment} to {len(students)} student{'s' if len(students) != 1 else ''} ({named})"
        )
    return "; ".join(parts)
