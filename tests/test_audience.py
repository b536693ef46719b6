"""What each reader may see of a report is decided in one place (grader.judge.audience.redact):
the renderers write what they are given, and the rule that withholds what the code printed where
hidden checks ran is stated once, not in each renderer and again in the server."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from grader.judge.audience import OUTPUT_WITHHELD, Audience, redact
from grader.judge.hidden_runs import HIDDEN_INTEGRITY
from grader.judge.report import CheckResult, Diagnosis, ExerciseResult, Report
from grader.outputs.feedback import feedback_html
from grader.outputs.formats import render
from grader.outputs.notebook_html import report_html

ROOT = Path(__file__).resolve().parent.parent
PRINTED = "a = 31.337 (a hidden check's input)\n"


def _report() -> Report:
    """A report whose code printed, with a public check diagnosed two ways, and a hidden one."""
    full = Diagnosis(kind="localized", mistake="whole-file", hint="seen with the hidden verdict",
                     evidence="")
    public = Diagnosis(kind="known-mistake", mistake="public-only", hint="seen on public checks",
                       evidence="")
    checks = (
        CheckResult(name="shown", about="", status="failed", score=0.0, max_score=1.0,
                    problem="wrong", visibility="public", diagnosis=full, public_diagnosis=public),
        CheckResult(name="secret", about="", status="passed", score=1.0, max_score=1.0,
                    problem="", visibility="hidden"),
    )
    exercise = ExerciseResult(id="node-mul", title="Multiply", checks=checks)
    return Report(submission="a.py", sha256="", seed=4217, grader_version="x", seconds=1.5,
                  output=PRINTED, integrity=(HIDDEN_INTEGRITY,), exercises=(exercise,))


def test_the_instructor_reads_the_report_as_graded() -> None:
    report = _report()
    assert redact(report, Audience.INSTRUCTOR) == report


@pytest.mark.parametrize("audience", [a for a in Audience if a is not Audience.INSTRUCTOR])
def test_no_student_reads_what_the_code_printed_where_hidden_checks_ran(audience: Audience) -> None:
    seen = redact(_report(), audience)
    assert seen.output == "" and OUTPUT_WITHHELD in seen.notes
    released = audience is Audience.STUDENT_AFTER_RELEASE
    names = [c.name for c in seen.exercises[0].checks]
    assert names == (["shown", "secret"] if released else ["shown"])
    assert seen.hidden_points == (0.0 if released else 1.0)
    assert seen.exercises[0].checks[0].diagnosis.mistake == (  # type: ignore[union-attr]
        "whole-file" if released else "public-only")
    assert (seen.integrity, seen.seconds) == (((HIDDEN_INTEGRITY,), 1.5) if released else ((), 0.0))


@pytest.mark.parametrize("audience", list(Audience))
def test_redacting_again_changes_nothing(audience: Audience) -> None:
    """A renderer written for students may redact what the server already redacted."""
    once = redact(_report(), audience)
    assert redact(once, audience) == once
    if audience is not Audience.INSTRUCTOR:  # the feedback page redacts for a student again
        assert redact(once, Audience.STUDENT_AFTER_RELEASE) == once


def test_the_pages_show_what_their_audience_may_see_and_hold_no_rule_of_their_own() -> None:
    report = _report()
    for page in (feedback_html(report), report_html(report)):  # a student's, by default
        assert "31.337" not in page and OUTPUT_WITHHELD in page
    for page in (feedback_html(report, audience=Audience.INSTRUCTOR),
                 report_html(report, Audience.INSTRUCTOR)):
        assert "31.337" in page and OUTPUT_WITHHELD not in page
    # the terminal's report is the instructor's: it prints what it is given
    assert "31.337" in render("text", report).decode()
    assert "31.337" not in render("text", redact(report, Audience.STUDENT_AFTER_RELEASE)).decode()
    quiet = dataclasses.replace(report, output="")
    assert OUTPUT_WITHHELD not in feedback_html(quiet)  # nothing printed: nothing to withhold


def test_the_rule_is_written_once() -> None:
    """The sentence and the rule behind it live in grader/judge/audience.py alone."""
    said = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "grader").rglob("*.py")
                  if "What your code printed is withheld" in p.read_text(encoding="utf-8"))
    assert said == ["grader/judge/audience.py"]
