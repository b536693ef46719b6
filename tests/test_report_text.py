"""The text report says each thing once: one error that stops several checks, output capped, hidden points named."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from grader.judge.report import CheckResult, Diagnosis, ExerciseResult, Report, Status
from grader.outputs.render_text import OUTPUT_CHARS, render_text

STUB = "Not implemented yet: node-mul: implement Node.__mul__ (line 9, in __mul__(): raise NotImplementedError)."


def check(name: str, status: Status = "error", problem: str = STUB, **more: Any) -> CheckResult:
    return CheckResult(name=name, about=f"what {name} checks", status=status, score=0.0, max_score=1.0,
                       problem=problem, visibility="public", code=f"run_{name.replace(' ', '_')}()", **more)


def report(*checks: CheckResult, output: str = "", truncated: bool = False, hidden: float = 0.0) -> Report:
    exercise = ExerciseResult(id="node-mul", title="Multiplication", checks=checks, hidden_points=hidden)
    return Report(submission="s.py", sha256="0" * 64, seed=0, exercises=(exercise,), grader_version="0",
                  output=output, output_truncated=truncated)


def test_one_error_that_stops_several_checks_is_shown_once() -> None:
    text = render_text(report(check("a"), check("b"), check("c", problem="Your code raised KeyError: 'x'."),
                              check("d")))
    assert text.count(STUB) == 1 and text.count("Your code raised KeyError") == 1
    assert "the same error in 2 more checks: b, d" in text
    assert "what a checks" in text and "what b checks" not in text and "what c checks" in text
    assert all(f"ERROR  {name}" in text for name in "abcd")  # every check keeps its line and points


def test_checks_skipped_for_one_reason_say_it_once() -> None:
    why = "Skipped: CUDA is not available on this machine."
    text = render_text(report(check("a", status="skipped", problem=why), check("b"),
                              check("a [cuda]", status="skipped", problem=why)))
    assert text.count(why) == 1 and "skipped for the same reason: a [cuda]" in text


def test_the_same_words_with_another_likely_mistake_are_not_merged() -> None:
    hint = Diagnosis(kind="pattern", mistake="leaf-in-place", hint="use torch.no_grad()", evidence="")
    text = render_text(report(check("a"), check("b", diagnosis=hint)))
    assert text.count(STUB) == 2 and "the same error" not in text


def test_a_single_error_reads_as_before() -> None:
    text = render_text(report(check("a"), check("b", status="passed", problem="")))
    assert STUB in text and "the same error" not in text


def test_long_output_is_capped_on_the_terminal_and_says_how_much() -> None:
    one_line = "x" * 64 * 1024
    text = render_text(report(check("a"), output=one_line))
    assert len(text) < OUTPUT_CHARS + 2000
    assert "Your code printed (the first 4.0 KiB of 64.0 KiB; --format json has it all):" in text
    text = render_text(report(check("a"), output="line\n" * 1000, truncated=True))
    assert text.count("│ line") == 30 and "(the first 30 lines of the 4.9 KiB kept; it printed more" in text
    text = render_text(report(check("a"), output="line\n" * 40))
    assert "Your code printed (the first 30 lines of 40 lines; --format json has it all):" in text
    short = render_text(report(check("a"), output="hello\n"))
    assert "Your code printed:\n  │ hello" in short


def test_hidden_points_are_named_beside_the_score() -> None:
    passed = replace(check("a", status="passed", problem=""), score=1.0)
    assert "Score: 1/1 on the public checks; 1 more point is in hidden checks run after you submit (1 of 1" in \
        render_text(report(passed, hidden=1))
    assert "Score: 1/1 on the public checks; 2.5 more points are in hidden checks" in \
        render_text(report(passed, hidden=2.5))
    assert "Score: 1/1 (1 of 1 checks passed)" in render_text(report(passed))


def test_the_feedback_page_names_hidden_points_and_how_a_mistake_was_found() -> None:
    from grader.outputs.feedback import feedback_html

    passed = replace(check("a", status="passed", problem=""), score=1.0)
    localized = Diagnosis(kind="localized", mistake="swapped-locals", hint="swap them back", evidence="")
    page = feedback_html(report(passed, check("b", status="failed", problem="wrong", diagnosis=localized), hidden=1))
    assert "on the public checks; 1 more point is in hidden checks run after you submit" in page
    assert "(found by running each operation alone)" in page and "(a pattern)" not in page
