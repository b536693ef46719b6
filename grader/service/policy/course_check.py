"""`grade course check`: course.toml read as `grade serve` reads it, and what
each assignment is, in the words a student and an instructor meet: what it
grades, how a student submits to it, its deadline and close in the course's
zone (and whether its hidden results are out), its late policy and what counts.

What cannot work is refused before (grader.service.config.load_course, the same
for `grade serve`): an assignment whose exercises need the same name (one file
answers an assignment, and cannot define two `Node`s), or a name that means two
assignments. What works but may surprise is said here as a note: an exercise that
several assignments grade (a file that names only its exercise goes to the first).
"""

from __future__ import annotations

import time

from grader.service.config import Course, Rules
from grader.service.policy import clock
from grader.service.standing import late_rule


def report(course: Course, now: float | None = None) -> list[str]:
    """The lines `grade course check` prints."""
    moment = time.time() if now is None else now
    lines = [
        f"{course.folder / 'course.toml'}: {course.name}, {len(course.assignments)} assignment(s), "
        f"times in {clock.shown_zone(course)}"
    ]
    for rules in course.assignments.values():
        lines += _assignment(course, rules, moment)
    lines += _notes(course)
    return lines


def _assignment(course: Course, rules: Rules, now: float) -> list[str]:
    exercises = ", ".join(rules.exercise_ids)
    stands = (
        f" (the catalog's assignment {rules.catalog_assignment})"
        if rules.catalog_assignment
        else ""
    )
    file = (
        f"{rules.catalog_assignment}.ipynb"
        if rules.catalog_assignment
        else f"{rules.exercise_ids[0]}.py"
        if len(rules.exercise_ids) == 1
        else "FILE"
    )
    deadline = (
        "no deadline"
        if rules.deadline is None
        else f"deadline {clock.shown(rules.deadline, course)}"
        + (" (passed: hidden results are out)" if now >= rules.deadline else "")
    )
    closes = course.closes_for(rules, "")
    closing = "never closes" if closes is None else f"closes {clock.shown(closes, course)}"
    return [
        f"{rules.id}: {exercises}{stands}, {rules.points:g} points; students submit with: grade "
        f"submit {file} "
        f"--assignment {rules.id}",
        f"  {deadline}, {closing}; {late_rule(rules)}; counts the {rules.counts} submission",
    ]


def _notes(course: Course) -> list[str]:
    owners: dict[str, list[str]] = {}
    for rules in course.assignments.values():
        for exercise in rules.exercise_ids:
            owners.setdefault(exercise, []).append(rules.id)
    notes = []
    for exercise, assignments in owners.items():
        if len(assignments) > 1:
            alone = [a for a in assignments if course.assignments[a].exercise_ids == (exercise,)]
            first = alone[0] if alone else assignments[0]
            notes.append(
                f"note: {exercise} is graded by {', '.join(assignments)}: a file that names only "
                f"its exercise (# exercise: {exercise}) goes to {first}; students name the "
                "assignment (--assignment ID)."
            )
    return notes
