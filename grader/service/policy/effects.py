"""What an upload does to what counts, in the words of its
receipt, and why an upload after the close is refused.

Before the student's deadline the receipt says only the rule (under "last", this one
replaces any earlier; under "best", the best counts), since which submission counts, and its
score, would tell how the hidden checks went. After it the receipt names what counts now and
what this upload does to it: "This replaces your counted 20/20 (on time) with a late upload
that counts 0 (no late work is taken)". What counts is grader.service.standing's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from grader.core.compare import fmt_points
from grader.service.config import Course, Rules
from grader.service.policy import clock
from grader.service.standing import Counted, Row, factor_of, plan, span


def closed(course: Course, rules: Rules, student: str, closes: float) -> str:
    """Why an upload after the assignment's close is refused, and what still stands."""
    deadline = rules.deadline_for(student)
    if rules.closes is not None:
        why = "the course closes it then"
    elif rules.late == "none":
        why = "it takes no late work"
    elif rules.late == "late-days":
        why = f"late work counts with up to {course.late_days} late days"
    else:
        why = "later work would count 0 under its late policy"
    return (
        f"{rules.id} closed at {clock.shown(closes, course)} (its deadline was "
        f"{clock.shown(deadline, course)}, and {why}): this file was NOT stored. What you "
        "submitted before stands (grade submit --status). If you need an exception, ask your "
        "instructor."
    )


def effect(
    course: Course,
    student: str,
    rules: Rules,
    earlier: Sequence[Row],
    days_late: float,
    released: bool,
) -> str:
    """What an upload does to what counts for `rules`, given the student's
    `earlier` submissions (all of them: late days go across assignments).
    `released`: their deadline has passed, so what counts may be named."""
    if not released:
        if rules.counts == "last":
            return (
                "Your last submission is the one that counts: this one replaces any earlier (which "
                "one counts, and its score, show after the deadline)."
            )
        return "Your best submission counts (decided at the deadline, with the hidden checks)."
    before = plan(course, student, earlier)
    counted = before.counted[rules.id]
    if counted.correction is not None:
        return (
            f"Your instructor set what counts for {rules.id} ({counted.why}): this upload does not "
            "change it."
        )
    now = _what_it_counts(rules, days_late, before.left[rules.id] + counted.late_days_used)
    held = counted.score is not None and counted.row is not None
    if rules.counts == "last":
        if held:
            return f"This replaces your counted {_score(counted)} ({counted.why}) with a {now}."
        return f"This is now your submission that counts: a {now}."
    if held:
        return (
            f"Your counted {_score(counted)} ({counted.why}) stays unless this one counts more: a "
            f"{now}."
        )
    return f"This is a {now}."


def _what_it_counts(rules: Rules, days: float, left: int) -> str:
    """An upload `days` late, and what it can count
    ("late upload that counts 75% of what it earns")."""
    if days <= 0:
        return "upload on time, that counts what it earns"
    if rules.late == "late-days":
        spent = math.ceil(days - 1e-9)
        if spent > left:
            return (
                f"late upload that counts 0: it needs {spent} late day{'s' if spent != 1 else ''}, "
                f"and {left} {'is' if left == 1 else 'are'} left for it"
            )
        return (
            f"late upload that counts in full with {spent} of your late days ({left} left for it; "
            "they go where they count most)"
        )
    if rules.late == "none":
        return "late upload that counts 0 (this assignment takes no late work)"
    factor, _, why = factor_of(rules, days, 0)
    if rules.max_late_days is not None and days > rules.max_late_days:
        return (
            f"late upload that counts 0 ({span(days)} late, past the {rules.max_late_days:g} days "
            "it is taken)"
        )
    if factor == 0.0:
        return f"late upload that counts 0 ({span(days)} late: the penalty takes all of it)"
    return f"late upload that counts {round(factor * 100)}% of what it earns ({why})"


def _score(counted: Counted) -> str:
    return f"{fmt_points(counted.score or 0.0)}/{fmt_points(counted.max_score or 0.0)}"
