"""Gradescope's results.json (schemas/gradescope-results.schema.json), from one report."""

from __future__ import annotations

import re
from itertools import chain
from typing import Any

from grader import __version__
from grader.core.compare import fmt_points
from grader.judge.report import CheckResult, ExerciseResult, Report
from grader.outputs.precision_note import with_precision_note
from grader.outputs.trace_note import with_trace_note

#: Gradescope's harness cuts every output longer than this (characters), in the middle, with MARKER
MAX_OUTPUT = 100_000
MARKER = "[...(truncated)...]"
#: what the submission printed, kept in results.json: enough to debug with, small next to the limit
PRINTED_LIMIT = 10_000
GRADER = "autograd-grader"

# NUL is replaced by the harness anyway; lone surrogates
# (undecodable bytes) cannot be written as UTF-8.
_UNWRITABLE = re.compile("[\x00\ud800-\udfff]")


def gradescope_results(report: Report) -> dict[str, Any]:
    """The whole results.json for one graded submission: one test per check."""
    several = len(report.exercises) > 1
    tests = []
    for e, exercise in enumerate(report.exercises, start=1):
        for c, check in enumerate(exercise.checks, start=1):
            tests.append(_test(exercise, e, check, c, several))
    checks = list(chain.from_iterable(e.checks for e in report.exercises))
    hidden = any(c.visibility == "hidden" for c in checks)
    printed = _printed(report)
    if printed and hidden:
        # Hidden checks run in the student's process, which can print their inputs; the
        # top-level output is shown at once, and every resubmission gets the same inputs (one
        # seed per autograder), so what it printed waits for the grades to be published.
        tests.append(_printed_test(printed, len(report.exercises) + 1))
    return {
        "score": report.score,
        "execution_time": round(report.seconds, 3),
        "output": truncate_middle(_summary(report, printed, hidden)),
        "output_format": "text",
        "tests": tests,
        "extra_data": {
            "grader": GRADER,
            "grader_version": report.grader_version,
            "seed": report.seed,
            **({"seed_token": report.seed_token} if report.seed_token is not None else {}),
            "sha256": report.sha256,
        },
    }


def gradescope_failure(message: str) -> dict[str, Any]:
    """A results.json for a run that produced no report,
    so that the student still sees why (score 0)."""
    text = f"The autograder could not grade this submission.\n{message}".rstrip()
    return {
        "score": 0,
        "output": truncate_middle(text),
        "output_format": "text",
        "tests": [],
        "extra_data": {"grader": GRADER, "grader_version": __version__, "failed": True},
    }


def truncate_middle(text: str, limit: int = MAX_OUTPUT) -> str:
    """`text` made writable and at most `limit` characters: its start and end, MARKER between."""
    text = _UNWRITABLE.sub("\ufffd", text)
    if len(text) <= limit:
        return text
    keep = max(limit - len(MARKER), 0)
    head = keep - keep // 2
    return text[:head] + MARKER + text[len(text) - (keep - head) :]


def _test(
    exercise: ExerciseResult, e: int, check: CheckResult, c: int, several: bool
) -> dict[str, Any]:
    skipped = check.status == "skipped"
    test: dict[str, Any] = {
        "name": f"{exercise.id}: {check.name}" if several else check.name,
        "number": f"{e}.{c}",
        # A skipped check counts for nothing: an informational test, neither red nor worth points.
        "score": 0.0 if skipped else check.score,
        "max_score": 0.0 if skipped else check.max_score,
        "status": "passed" if check.status in ("passed", "skipped") else "failed",
        "visibility": "after_published" if check.visibility == "hidden" else "visible",
        "tags": [exercise.id],
    }
    # A hidden check says how it went, never what it ran or which mistake it points at: the hint
    # would tell what the hidden check tests, and every resubmission meets the same inputs.
    output = with_trace_note(
        with_precision_note(
            check.problem if check.visibility == "hidden" else check.message, check
        ),
        check,
    ) or ("Skipped." if skipped else "")
    if output:
        test["output"] = truncate_middle(output)
    return test


def _printed_test(printed: str, number: int) -> dict[str, Any]:
    return {
        "name": "What your code printed",
        "number": f"{number}.1",
        "score": 0.0,
        "max_score": 0.0,
        "status": "passed",
        "visibility": "after_published",
        "output": truncate_middle(printed),
        "tags": [],
    }


def _summary(report: Report, printed: str, hidden: bool) -> str:
    """The top-level output: the score, then everything
    about the submission that is not one check."""
    checks = list(chain.from_iterable(e.checks for e in report.exercises))
    passed = sum(c.status == "passed" for c in checks)
    counted = sum(c.status != "skipped" for c in checks)
    lines = [
        f"Score: {fmt_points(report.score)}/{fmt_points(report.max_score)} ({passed} of {counted} "
        "checks passed)"
    ]
    lines += [f"Problem: {p}" for p in report.problems]
    lines += [f"Note: {n}" for n in report.notes]
    for exercise in report.exercises:
        lines.append(
            f"Exercise {exercise.id}: {exercise.title} "
            f"({fmt_points(exercise.score)}/{fmt_points(exercise.max_score)})"
        )
        lines += [f"  Problem: {p}" for p in exercise.problems]
    if printed and hidden:
        lines.append("What your code printed is shown once the grades are published.")
    elif printed:
        lines += ["", "Your code printed:", printed]
    return "\n".join(lines)


def _printed(report: Report) -> str:
    """What the submission printed, cut to PRINTED_LIMIT;
    empty when it printed nothing but whitespace."""
    if not report.output.strip():
        return ""
    text = truncate_middle(report.output.rstrip("\n"), PRINTED_LIMIT)
    if report.output_truncated:
        text += "\n(it printed more; the rest was dropped)"
    return text
