"""An LTI 1.3 Assignment and Grade Services Score
(schemas/lti-score.schema.json), from one report."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from grader.core.compare import fmt_points
from grader.judge.report import Report
from grader.outputs.students import Outcome

#: the Content-Type of a Score POSTed to `{lineitem}/scores`
SCORE_MEDIA_TYPE = "application/vnd.ims.lis.v1.score+json"
#: the comment is shown in the LMS gradebook beside the score: a summary, not the report
COMMENT_LIMIT = 400
GRADER_FAILED = (
    "The autograder itself failed on this submission, so no score was given. "
    "This is not a problem with your work."
)
EXCUSED = (
    "Your instructor excused you from this assignment: it counts neither points nor out of any."
)


def lti_score(
    report: Report, user_id: str, timestamp: datetime, *, outcome: Outcome = "graded"
) -> dict[str, Any]:
    """The Score to POST for `user_id`; `timestamp`
    (timezone-aware) must grow with every score sent for them."""
    if not user_id:
        raise ValueError("an LTI Score needs the student's LTI user id")
    score: dict[str, Any] = {"userId": user_id}
    if outcome == "grader-error":
        # No scoreGiven: a grader bug must not write a zero into the gradebook.
        score["comment"] = GRADER_FAILED
        score["gradingProgress"] = "Failed"
    elif outcome == "excused":
        # No scoreGiven: the platform clears the score (AGS has no "excused"), so
        # the assignment counts neither points nor out of any; the comment says why.
        score["comment"] = _shorten(EXCUSED + " " + " ".join(report.problems[:1]), COMMENT_LIMIT)
        score["gradingProgress"] = "FullyGraded"
    else:
        # Platforms reject scoreMaximum 0; a report where nothing counted is 0 out of 1.
        score["scoreGiven"] = 0.0 if outcome in ("unreadable", "missing") else report.score
        score["scoreMaximum"] = report.max_score if report.max_score > 0 else 1.0
        score["comment"] = comment(report)
        score["gradingProgress"] = "FullyGraded"
    # AGS: Initialized is "the user has not started the
    # activity"; a missing student handed nothing in.
    score["activityProgress"] = "Initialized" if outcome == "missing" else "Completed"
    score["timestamp"] = lti_timestamp(timestamp)
    return score


def lti_timestamp(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds, as AGS asks
    (sub-second precision): 2017-04-16T18:54:36.736+00:00."""
    if moment.utcoffset() is None:
        raise ValueError("an LTI timestamp needs a timezone (use datetime.now(UTC))")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def comment(report: Report, limit: int = COMMENT_LIMIT) -> str:
    """Plain text: the score, how many checks passed, the
    first problem, then the names of the failed checks."""
    several = len(report.exercises) > 1
    checks = []
    for exercise in report.exercises:
        checks += [(exercise.id, c) for c in exercise.checks]
    counted = [(e, c) for e, c in checks if c.status != "skipped"]
    passed = sum(c.status == "passed" for _, c in counted)
    skipped = len(checks) - len(counted)
    text = (
        f"Score {fmt_points(report.score)}/{fmt_points(report.max_score)}: {passed} of "
        f"{len(counted)} checks passed"
    )
    text += f" ({skipped} skipped)." if skipped else "."
    if not counted:
        text += " No check could be graded."
    if report.problems:
        text += " " + _shorten(report.problems[0], limit // 2)
    failed = [f"{e}: {c.name}" if several else c.name for e, c in counted if c.status != "passed"]
    return _with_names(text, "Failed: ", failed, limit)


def _with_names(text: str, lead: str, names: list[str], limit: int) -> str:
    """`text` and as many of `names` as fit in `limit` characters, then how many more there were."""
    for shown in range(len(names), -1, -1):
        more = len(names) - shown
        if not shown and not more:
            return _shorten(text, limit)
        listed = "; ".join(names[:shown]) + (f"; and {more} more" if more and shown else "")
        candidate = f"{text} {lead}{listed or f'{more} checks'}."
        if len(candidate) <= limit:
            return candidate
    return _shorten(text, limit)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
