"""grader.outputs.render_text on its own: a hand-built Report in, the exact lines a student reads out.

tests/test_report_text.py covers saying one error once and capping long output; this file pins the
rest of the page line by line: the header, each kind of check, the summing-up of mistakes, the score
line, and that nothing a submission chose (its output, its exception messages, its file's name) reaches
the terminal as a control sequence.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from grader.judge.report import CheckResult, Diagnosis, ExerciseResult, ObservationResult, Report
from grader.outputs.render_text import render_text
from grader.run.observed import Isolation

OVERWRITE = Diagnosis(kind="known-mistake", mistake="overwrite", hint="Add with +=, not =.", evidence="")
HALF = Diagnosis(kind="pattern", mistake="half", hint="A contribution is lost.", evidence="")
NOTHING = Diagnosis(kind="unknown", mistake="", hint="", evidence="no known mistake or pattern matches")


def check(name: str, status: str = "passed", score: float | None = None, max_score: float = 1.0,
          **more: Any) -> CheckResult:
    fields: dict[str, Any] = {"about": "", "problem": "", "visibility": "public"} | more
    return CheckResult(name=name, status=status,  # type: ignore[arg-type]
                       score=(max_score if status == "passed" else 0.0) if score is None else score,
                       max_score=max_score, **fields)


def wrong(label: str, expected: str, got: str, problem: str = "") -> ObservationResult:
    return ObservationResult(label=label, expected=expected, got=got, ok=False, problem=problem)


def report(*checks: CheckResult, exercises: tuple[ExerciseResult, ...] = (), **more: Any) -> Report:
    exercise = ExerciseResult(id="node-mul", title="Multiplication", checks=checks)
    fields: dict[str, Any] = {"submission": "alice.py", "sha256": "0" * 64, "seed": 3, "grader_version": "9.9",
                              "seconds": 1.25} | more
    return Report(exercises=exercises or (exercise,), **fields)


def lines(r: Report, **options: Any) -> list[str]:
    return render_text(r, **options).split("\n")


# ---- the page's frame ----------------------------------------------------------------------------------


def test_header_exercise_line_and_score_line() -> None:
    text = lines(report(check("value"), check("gradients", "failed", max_score=2.0, problem="wrong")))
    assert text[0] == "autograd-grader 9.9 · alice.py · seed 3"
    assert "Exercise node-mul: Multiplication  (1/3)" in text
    assert text[-2:] == ["Score: 1/3 (1 of 2 checks passed) in 1.25 s", ""]


def test_skipped_checks_are_not_counted_in_the_score_line() -> None:
    r = report(check("value"), check("value [cuda]", "skipped", max_score=0.0, problem="Skipped: no CUDA here."))
    assert lines(r)[-2] == "Score: 1/1 (1 of 1 checks passed) in 1.25 s"
    assert "  SKIP   value [cuda]  -" in lines(r)


def test_points_are_written_as_people_write_them() -> None:
    r = report(check("a", score=1 / 3, max_score=1 / 3), check("b", "failed", max_score=2.5, problem="no"))
    text = lines(r)
    assert "  PASS   a  0.33/0.33" in text and "  FAIL   b  0/2.5" in text
    assert "Exercise node-mul: Multiplication  (0.33/2.83)" in text


def test_weaker_isolation_notes_problems_and_integrity_come_before_the_exercises() -> None:
    r = report(check("value"), notes=("%timeit did not run",), problems=("A cell raised NameError: x.",),
               integrity=("used gc.get_objects() (alice.py:9)",),
               isolation=Isolation("landlock", "landlock", "Landlock only: no namespaces on this machine"))
    assert lines(r)[1:6] == ["  isolation: landlock (Landlock only: no namespaces on this machine)",
                             "  note: %timeit did not run",
                             "  ! A cell raised NameError: x.",
                             "  ! Integrity: used gc.get_objects() (alice.py:9)",
                             ""]
    full = replace(r, isolation=Isolation("full", "namespaces", "every namespace"))
    assert not any("isolation" in line for line in lines(full))


# ---- checks -----------------------------------------------------------------------------------------------


def test_a_passed_check_is_one_line_and_names_are_aligned() -> None:
    r = report(check("value", about="never shown when passed", code="x = 1"), check("a longer name", "failed",
                                                                                   problem="broken"))
    text = lines(r)
    assert "  PASS   value          1/1" in text and "  FAIL   a longer name  0/1" in text
    assert not any("never shown" in line or "x = 1" in line for line in text)


def test_a_failed_check_shows_what_ran_what_differed_and_the_likely_mistake() -> None:
    failed = check("gradients", "failed", max_score=2.0, about="d/dx of x * b",
                   problem="x.grad: expected 2.0, got 1.0; y.grad: expected 3.0, got 0.0.",
                   inputs=(("a", "3"), ("b", "2")), code="x = Node(a)\nout = x * b\nout.backward()\n",
                   observations=(ObservationResult(label="out.value", expected="6.0", got="6.0", ok=True),
                                 wrong("x.grad", "2.0", "1.0", "expected 2.0, got 1.0"),
                                 wrong("y", "3.0", "0.0")),
                   diagnosis=OVERWRITE)
    text = lines(report(failed))
    at = text.index("  FAIL   gradients  0/2")
    assert text[at + 1:at + 9] == [
        "         d/dx of x * b",
        "         inputs   a = 3, b = 2",
        "         ran      x = Node(a)",
        "                  out = x * b",
        "                  out.backward()",
        "         x.grad  expected 2.0, got 1.0",  # a right observation is not repeated; labels aligned
        "         y       expected 3.0, got 0.0",  # no problem text: expected and got say it
        "         likely   overwrite (a known mistake): Add with +=, not =."]


def test_a_check_without_observations_shows_its_problem_and_how_its_mistake_was_found() -> None:
    for diagnosis, sure in ((HALF, "a pattern"), (replace(OVERWRITE, kind="localized"),
                                                  "found by running each operation alone")):
        text = lines(report(check("p", "error", problem="Your code raised KeyError: 'x'.", diagnosis=diagnosis)))
        at = text.index("  ERROR  p  0/1")
        assert text[at + 1:at + 3] == ["         Your code raised KeyError: 'x'.",
                                       f"         likely   {diagnosis.mistake} ({sure}): {diagnosis.hint}"]


def test_an_unknown_diagnosis_names_nothing_on_the_check() -> None:
    text = render_text(report(check("p", "failed", problem="x: expected 1.0, got 2.0.",
                                    observations=(wrong("x", "1.0", "2.0"),), diagnosis=NOTHING)))
    assert "likely" not in text
    assert "  1 failed check fit no known mistake or pattern: compare expected and got above." in text


def test_a_hidden_check_is_marked_and_shows_only_what_the_check_kept() -> None:
    hidden = check("secret", "failed", visibility="hidden", problem="This hidden check did not pass; its details "
                   "are withheld.")
    text = lines(report(hidden))
    at = text.index("  FAIL   secret  0/1  (hidden)")
    assert text[at + 1] == "         This hidden check did not pass; its details are withheld."
    assert not text[at + 2].startswith("         ")


def test_the_same_error_in_one_more_check_is_singular() -> None:
    stub = "Not implemented yet: ex: implement Node.__mul__."
    text = render_text(report(check("a", "error", problem=stub), check("b", "error", problem=stub)))
    assert text.count(stub) == 1 and "         the same error in 1 more check: b" in text


# ---- the summing-up ----------------------------------------------------------------------------------


def test_likely_mistakes_are_summed_up_most_common_first_with_what_found_them() -> None:
    r = report(check("a", "failed", problem="p", diagnosis=HALF),
               check("b", "failed", problem="p", diagnosis=OVERWRITE),
               check("c", "failed", problem="q", diagnosis=OVERWRITE),
               check("d", "failed", problem="x: wrong.", observations=(wrong("x", "1.0", "2.0"),), diagnosis=NOTHING),
               check("e", "failed", problem="y: wrong.", observations=(wrong("y", "1.0", "2.0"),), diagnosis=NOTHING),
               check("f", "error", problem="Your code raised KeyError: 'k'.", diagnosis=NOTHING))
    text = lines(r)
    assert "  Likely mistakes: overwrite (known mistake, 2 checks); half (pattern, 1 check)" in text
    # an error is its own explanation: only checks with expected and got values count as unexplained
    assert "  2 failed checks fit no known mistake or pattern: compare expected and got above." in text


def test_an_exercise_that_passes_has_no_summing_up() -> None:
    text = render_text(report(check("a"), check("b")))
    assert "Likely mistakes" not in text and "fit no known mistake" not in text


def test_each_exercise_has_its_own_section_and_summing_up() -> None:
    first = ExerciseResult(id="node-mul", title="Multiplication", checks=(check("a", "failed", problem="p",
                                                                                diagnosis=OVERWRITE),))
    second = ExerciseResult(id="node-add", title="Addition", checks=(check("b"),),
                            problems=("Your file does not define `Node`.",))
    text = lines(report(exercises=(first, second)))
    mul, add = text.index("Exercise node-mul: Multiplication  (0/1)"), text.index("Exercise node-add: Addition  (1/1)")
    summary = text.index("  Likely mistakes: overwrite (known mistake, 1 check)")
    assert mul < summary < add
    assert text[add + 1:add + 3] == ["  ! Your file does not define `Node`.", "  PASS   b  1/1"]


# ---- what the submission printed -----------------------------------------------------------------------


def test_output_is_shown_under_its_own_heading_and_blank_output_is_not() -> None:
    text = lines(report(check("a"), output="loss 0.5\nloss 0.25\n"))
    at = text.index("  Your code printed:")
    assert text[at + 1:at + 3] == ["  │ loss 0.5", "  │ loss 0.25"]
    assert "Your code printed" not in render_text(report(check("a"), output="\n  \n"))


def test_few_long_lines_are_capped_by_size_and_say_so() -> None:
    text = render_text(report(check("a"), output="y" * 5000 + "\nend\n"))
    assert "  Your code printed (the first 4.0 KiB of 4.9 KiB; --format json has it all):" in text
    assert "end" not in text.split("Your code printed")[1]


def test_kept_output_that_was_cut_by_the_child_says_it_printed_more() -> None:
    text = render_text(report(check("a"), output="short\n", output_truncated=True))
    assert "  Your code printed (the first 5 characters of the 5 characters kept; it printed more; --format json " \
        "has what was kept):" in text


# ---- what the submission chose never drives the terminal ---------------------------------------------


def test_control_sequences_in_output_are_shown_as_escapes() -> None:
    printed = "hi\x1b[2J\x1b]0;owned\x07 \u202eevil\x9b31m\x00\n"
    for color in (False, True):
        text = render_text(report(check("a"), output=printed), color=color)
        assert "\x1b[2J" not in text and "\x1b]0;" not in text and "\x07" not in text and "\u202e" not in text
        assert "\x9b" not in text and "\x00" not in text
    plain = lines(report(check("a"), output=printed))
    assert "  │ hi\\x1b[2J\\x1b]0;owned\\x07 \\u202eevil\\x9b31m\\x00" in plain


def test_a_carriage_return_cannot_overwrite_the_line_it_is_on() -> None:
    text = render_text(report(check("a"), output="Score: 0/10\rScore: 10/10\n"))
    assert "\r" not in text


def test_control_sequences_in_problems_and_the_file_name_are_shown_as_escapes() -> None:
    r = report(check("a", "error", problem="Your code raised KeyError: '\x1b[1A\x1b[2KPASS'."),
               submission="\x1b[31mbob.py", problems=("A cell raised ValueError: \u2066hidden\u2069.",))
    for color in (False, True):
        text = render_text(r, color=color)
        assert "\x1b[1A" not in text and "\x1b[31mbob" not in text and "\u2066" not in text
    page = lines(r)
    assert page[0] == "autograd-grader 9.9 · \\x1b[31mbob.py · seed 3"
    assert "         Your code raised KeyError: '\\x1b[1A\\x1b[2KPASS'." in page
    assert "  ! A cell raised ValueError: \\u2066hidden\\u2069." in page


def test_colour_only_when_asked_for() -> None:
    r = report(check("a"), check("b", "failed", problem="no"))
    assert "\x1b[" not in render_text(r)
    coloured = render_text(r, color=True)
    assert "\x1b[" in coloured
    assert "\x1b[1;31m1/2\x1b[0m" in coloured  # a failing score in bold red
    assert "\x1b[1;32m1/1\x1b[0m" in render_text(report(check("a")), color=True)  # a full one in bold green
