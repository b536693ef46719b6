"""The LMS and CI formats: Gradescope results.json, LTI AGS Score, JUnit XML, Canvas gradebook CSV."""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import junitparser
import pytest
from junitparser import xunit2

from grader.judge.catalog import Catalog
from grader.judge.report import CheckResult, ExerciseResult, Report
from grader.judge.session import grade
from grader.outputs.formats.gradebook import gradebook_csv
from grader.outputs.formats.gradescope import (
    MARKER,
    MAX_OUTPUT,
    gradescope_failure,
    gradescope_results,
    truncate_middle,
)
from grader.outputs.formats.junit import junit_xml
from grader.outputs.formats.lti import SCORE_MEDIA_TYPE, lti_score
from grader.outputs.students import ExerciseColumn, Student, StudentReport
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
WHEN = datetime(2026, 9, 1, 12, 0, 0, 123456, tzinfo=UTC)
NASTY = 'Doe, "J" <b>&amp;\x1b[31m</b>; \x00 é'  # CSV, XML and control characters at once

# What each sample is graded against; custom-sigmoid on the CPU only, so that its CUDA checks are skipped
# on every machine, with a GPU or without.
SAMPLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "solution": ("exercises/node-mul/solution.py", ("node-mul",)),
    "mutant": ("exercises/node-mul/mutants/swapped_locals.py", ("node-mul",)),
    "broken": ("submissions/node-mul/syntax_error.py", ("node-mul",)),
    "sigmoid": ("exercises/custom-sigmoid/solution.py", ("custom-sigmoid",)),
    "printing": ("submissions/node-relu/print_heavy.py", ("node-relu",)),
    "magics": ("submissions/notebooks/first_gradient_magics.ipynb", ("first-gradient",)),
    "two": ("exercises/tiny-engine/solution.py", ("node-mul", "node-add")),
}


@pytest.fixture(scope="module")
def reports(catalog: Catalog, sandbox: Sandbox) -> dict[str, Report]:
    return {key: grade(ROOT / path, [catalog.load(i) for i in ids], sandbox=sandbox, devices=("cpu",))
            for key, (path, ids) in SAMPLES.items()}


def schema(name: str) -> dict[str, Any]:
    text = resources.files("grader").joinpath(f"schemas/{name}.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


def validate(instance: object, name: str) -> None:
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    jsonschema.Draft202012Validator(schema(name), format_checker=checker).validate(instance)


def renamed(report: Report, name: str) -> Report:
    """The report with `name` in every check's name and message, and in what it printed."""
    return replace(report, output=f"{name}\n{report.output}", exercises=tuple(
        replace(e, checks=tuple(replace(c, name=f"{c.name} {name}", problem=f"{c.problem} {name}".strip())
                                for c in e.checks))
        for e in report.exercises))


def checks(report: Report) -> list[CheckResult]:
    return [c for e in report.exercises for c in e.checks]


# ------------------------------------------------------------------------------------------------
# Gradescope


def test_gradescope_results_follow_the_schema(reports: dict[str, Report]) -> None:
    for report in reports.values():
        results = gradescope_results(report)
        validate(results, "gradescope-results")
        assert json.loads(json.dumps(results)) == results  # plain JSON data
    validate(gradescope_failure("No .py file was found in your submission."), "gradescope-results")


def test_gradescope_has_one_test_per_check(reports: dict[str, Report]) -> None:
    report = reports["mutant"]
    results = gradescope_results(report)
    assert results["score"] == report.score == 1 and results["output_format"] == "text"
    assert isinstance(results["execution_time"], float) and results["execution_time"] >= 0
    tests = results["tests"]
    assert [t["name"] for t in tests] == [c.name for c in checks(report)]  # one exercise: no prefix
    assert [t["number"] for t in tests] == [f"1.{i}" for i in range(1, 7)]
    assert sum(t["max_score"] for t in tests) == report.max_score == 10
    assert all(t["tags"] == ["node-mul"] for t in tests)
    first, second = tests[0], tests[1]
    assert first["status"] == "passed" and first["score"] == first["max_score"] == 1 and "output" not in first
    assert second["status"] == "failed" and second["score"] == 0 and second["max_score"] == 2
    assert second["output"] == checks(report)[1].message and "Ran `x, y = Node(a), Node(b)" in second["output"]
    assert results["extra_data"] == {"grader": "autograd-grader", "grader_version": report.grader_version,
                                     "seed": 0, "sha256": report.sha256}


def test_hidden_checks_are_shown_after_publishing(reports: dict[str, Report]) -> None:
    for key in ("solution", "mutant"):
        tests = gradescope_results(reports[key])["tests"]
        visibility = {t["name"]: t["visibility"] for t in tests}
        hidden = [c.name for c in checks(reports[key]) if c.visibility == "hidden"]
        assert hidden and all(visibility[name] == "after_published" for name in hidden)
        assert {v for name, v in visibility.items() if name not in hidden} == {"visible"}


def test_a_skipped_check_is_an_informational_test(reports: dict[str, Report]) -> None:
    tests = gradescope_results(reports["sigmoid"])["tests"]
    skipped = [t for t in tests if t["name"].endswith("[cuda]")]
    assert skipped, "custom-sigmoid graded on the CPU only should skip its CUDA checks"
    for test in skipped:
        assert test["status"] == "passed" and test["score"] == test["max_score"] == 0
        assert test["output"].startswith("Skipped: ") and "--device cpu" in test["output"]
    assert sum(t["max_score"] for t in tests) == reports["sigmoid"].max_score == 12


def test_several_exercises_prefix_the_names_and_number_by_exercise(reports: dict[str, Report]) -> None:
    report = reports["two"]
    tests = gradescope_results(report)["tests"]
    assert tests[0]["name"] == f"node-mul: {report.exercises[0].checks[0].name}"
    assert {t["tags"][0] for t in tests} == {"node-mul", "node-add"}
    first_add = next(t for t in tests if t["tags"] == ["node-add"])
    assert first_add["number"] == "2.1" and first_add["name"].startswith("node-add: ")
    assert len({t["number"] for t in tests}) == len(tests)


def test_the_top_level_output_tells_what_is_not_a_check(reports: dict[str, Report]) -> None:
    broken = gradescope_results(reports["broken"])
    assert broken["score"] == 0 and all(t["status"] == "failed" for t in broken["tests"])
    assert broken["output"].startswith("Score: 0/10 (0 of 6 checks passed)")
    assert "Problem: Your file could not be loaded: SyntaxError" in broken["output"]
    magics = gradescope_results(reports["magics"])["output"]
    assert "Note: Cell 1, line 1: `%matplotlib inline` did not run" in magics


def test_what_a_submission_printed_waits_for_publishing_when_checks_are_hidden(reports: dict[str, Report]) -> None:
    report = reports["printing"]
    results = gradescope_results(report)
    assert "relu backward" not in results["output"] and "shown once the grades are published" in results["output"]
    printed = results["tests"][-1]
    assert printed["name"] == "What your code printed" and printed["visibility"] == "after_published"
    assert printed["max_score"] == 0 and printed["status"] == "passed"
    assert printed["output"].startswith("backward from a node holding -6.9288 through 4 nodes")

    public = replace(report, exercises=tuple(
        replace(e, checks=tuple(replace(c, visibility="public") for c in e.checks)) for e in report.exercises))
    results = gradescope_results(public)
    assert "Your code printed:\nbackward from a node holding -6.9288" in results["output"]
    assert len(results["tests"]) == len(checks(report))


def test_long_outputs_are_cut_in_the_middle_to_gradescopes_limit(reports: dict[str, Report]) -> None:
    base = reports["mutant"]
    long_check = replace(base.exercises[0].checks[1], problem="start " + "y" * 300_000 + " end")
    report = replace(base, problems=("p" * 250_000 + " last problem",),
                     exercises=(replace(base.exercises[0], checks=(long_check,)),))
    results = gradescope_results(report)
    validate(results, "gradescope-results")
    for text in (results["output"], results["tests"][0]["output"]):
        assert len(text) == MAX_OUTPUT and MARKER in text
    assert results["output"].startswith("Score: ") and results["output"].endswith("(0/2)")
    assert results["tests"][0]["output"].startswith("start yyy")
    assert results["tests"][0]["output"].endswith(long_check.message[-40:])

    assert truncate_middle("abc") == "abc"
    cut = truncate_middle("a" * 50 + "b" * 50, 41)
    assert len(cut) == 41 and cut.startswith("a" * 11) and cut.endswith("b" * 11) and MARKER in cut
    assert truncate_middle("nul\x00here") == "nul\ufffdhere"


def test_printed_output_is_kept_short(reports: dict[str, Report]) -> None:
    report = replace(reports["solution"], output="x" * 200_000 + "\nthe end", output_truncated=True,
                     exercises=())
    output = gradescope_results(report)["output"]
    assert len(output) < 11_000 and MARKER in output and "the end\n(it printed more" in output


def test_a_failed_grader_run_still_gives_the_student_a_result() -> None:
    results = gradescope_failure("No .py file or notebook was found in your submission.")
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"] == ("The autograder could not grade this submission.\n"
                                 "No .py file or notebook was found in your submission.")
    assert len(gradescope_failure("x" * 200_000)["output"]) == MAX_OUTPUT


def test_gradescope_is_deterministic(reports: dict[str, Report]) -> None:
    for report in reports.values():
        assert json.dumps(gradescope_results(report)) == json.dumps(gradescope_results(report))


# ------------------------------------------------------------------------------------------------
# LTI


def test_lti_scores_follow_the_schema(reports: dict[str, Report]) -> None:
    assert SCORE_MEDIA_TYPE == "application/vnd.ims.lis.v1.score+json"
    for report in reports.values():
        for outcome in ("graded", "unreadable", "grader-error"):
            validate(lti_score(report, "5323497", WHEN, outcome=outcome), "lti-score")


@pytest.mark.parametrize("bad", [
    {"scoreMaximum": 0},
    {"scoreGiven": -1},
    {"gradingProgress": "Done"},
    {"timestamp": "2026-09-01T12:00:00+00:00"},  # no sub-second precision
    {"timestamp": "2026-09-01T12:00:00.123"},  # no offset
])
def test_the_lti_schema_rejects_what_platforms_reject(reports: dict[str, Report], bad: dict[str, Any]) -> None:
    score = lti_score(reports["mutant"], "u1", WHEN) | bad
    with pytest.raises(jsonschema.ValidationError):
        validate(score, "lti-score")
    without_maximum = lti_score(reports["mutant"], "u1", WHEN)
    del without_maximum["scoreMaximum"]
    with pytest.raises(jsonschema.ValidationError):
        validate(without_maximum, "lti-score")


def test_a_graded_report_is_fully_graded(reports: dict[str, Report]) -> None:
    score = lti_score(reports["mutant"], "5323497", WHEN)
    assert score == {
        "userId": "5323497",
        "scoreGiven": 1.0,
        "scoreMaximum": 10.0,
        "comment": "Score 1/10: 1 of 6 checks passed. Failed: gradients under a factor; a node times itself; "
                   "a number on either side; two paths through a sum; a longer chain.",
        "gradingProgress": "FullyGraded",
        "activityProgress": "Completed",
        "timestamp": "2026-09-01T12:00:00.123+00:00",
    }
    assert lti_score(reports["solution"], "u", WHEN)["comment"] == "Score 10/10: 6 of 6 checks passed."


def test_the_comment_names_the_problem_and_the_skipped_checks(reports: dict[str, Report]) -> None:
    broken = lti_score(reports["broken"], "u", WHEN)["comment"]
    assert broken.startswith("Score 0/10: 0 of 6 checks passed. Your file could not be loaded: SyntaxError")
    sigmoid = lti_score(reports["sigmoid"], "u", WHEN)["comment"]
    assert sigmoid.startswith("Score 12/12: ") and "skipped" in sigmoid and "Failed" not in sigmoid
    two = replace(reports["two"], exercises=tuple(
        replace(e, checks=tuple(replace(c, status="failed", score=0.0) for c in e.checks[:1]))
        for e in reports["two"].exercises))
    assert "Failed: node-mul: product value; node-add: " in lti_score(two, "u", WHEN)["comment"]


def test_the_comment_stays_short(reports: dict[str, Report]) -> None:
    report = renamed(reports["broken"], "with a rather long name " * 2)
    report = replace(report, problems=("Your file could not be loaded: " + "z" * 1000,))
    comment = lti_score(report, "u", WHEN)["comment"]
    assert len(comment) <= 400 and comment.startswith("Score 0/10: 0 of 6 checks passed. Your file could not")
    assert "z…" in comment and "Failed: product value with a rather long name" in comment
    assert comment.endswith(" more.")
    names = renamed(reports["broken"], "with a very long name " * 20)
    assert lti_score(names, "u", WHEN)["comment"].endswith("Failed: 6 checks.")


def test_a_grader_error_gives_no_score(reports: dict[str, Report]) -> None:
    score = lti_score(reports["mutant"], "u1", WHEN, outcome="grader-error")
    assert score["gradingProgress"] == "Failed" and "scoreGiven" not in score and "scoreMaximum" not in score
    assert "not a problem with your work" in score["comment"]


def test_an_unreadable_submission_scores_zero(reports: dict[str, Report]) -> None:
    score = lti_score(reports["solution"], "u1", WHEN, outcome="unreadable")
    assert score["scoreGiven"] == 0 and score["scoreMaximum"] == 10 and score["gradingProgress"] == "FullyGraded"


def test_a_maximum_of_zero_becomes_zero_out_of_one(reports: dict[str, Report]) -> None:
    nothing = replace(reports["broken"], exercises=())
    score = lti_score(nothing, "u1", WHEN, outcome="unreadable")
    validate(score, "lti-score")
    assert score["scoreGiven"] == 0 and score["scoreMaximum"] == 1
    all_skipped = replace(reports["sigmoid"], exercises=tuple(
        replace(e, checks=tuple(replace(c, status="skipped", score=0.0) for c in e.checks))
        for e in reports["sigmoid"].exercises))
    assert all_skipped.max_score == 0
    score = lti_score(all_skipped, "u1", WHEN)
    validate(score, "lti-score")
    assert score["scoreMaximum"] == 1 and "No check could be graded" in score["comment"]


def test_lti_timestamps_are_utc_with_milliseconds(reports: dict[str, Report]) -> None:
    paris = datetime(2026, 9, 1, 14, 0, 0, 5000, tzinfo=timezone(timedelta(hours=2)))
    assert lti_score(reports["solution"], "u", paris)["timestamp"] == "2026-09-01T12:00:00.005+00:00"
    with pytest.raises(ValueError, match="timezone"):
        lti_score(reports["solution"], "u", datetime(2026, 9, 1))  # naive: the point of the test
    with pytest.raises(ValueError, match="user id"):
        lti_score(reports["solution"], "", WHEN)
    assert lti_score(reports["mutant"], "u", WHEN) == lti_score(reports["mutant"], "u", WHEN)


# ------------------------------------------------------------------------------------------------
# JUnit


# junitparser is only partly typed: its objects are handled as Any here.
def parse(text: str) -> list[Any]:
    """The testsuites, read as xunit2 (whose testcases have properties)."""
    document: Any = xunit2.JUnitXml.fromstring(text)
    return list(document)


def properties(element: Any) -> dict[str, str]:
    return {p.name: p.value for p in element.properties()}


def stream(suite: Any, kind: type[Any]) -> str | None:
    """The text of the suite's <system-out> or <system-err>, None without one."""
    element = suite.child(kind)
    return None if element is None else str(element.text)


def test_junit_counts_results_and_properties(reports: dict[str, Report]) -> None:
    text = junit_xml([("alice", reports["mutant"]), ("bob", reports["broken"]), ("carol", reports["sigmoid"])])
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="autograd-grader"')
    document = junitparser.JUnitXml.fromstring(text)
    skipped = sum(c.status == "skipped" for c in checks(reports["sigmoid"]))
    assert skipped > 0 and len(checks(reports["sigmoid"])) == 13
    assert (document.tests, document.failures, document.errors, document.skipped) == (6 + 6 + 13, 5, 6, skipped)
    alice, bob, carol = parse(text)
    assert [s.name for s in (alice, bob, carol)] == ["alice: node-mul", "bob: node-mul", "carol: custom-sigmoid"]
    assert (alice.tests, alice.failures, alice.errors, alice.skipped) == (6, 5, 0, 0)
    assert properties(alice) == {"score": "1", "max_score": "10", "seed": "0", "sha256": reports["mutant"].sha256,
                                 "grader_version": reports["mutant"].grader_version}
    cases = list(alice)
    assert [c.name for c in cases] == [c.name for c in checks(reports["mutant"])]
    assert {c.classname for c in cases} == {"alice.node-mul"}
    assert cases[0].is_passed and properties(cases[0]) == {"score": "1", "max_score": "1", "visibility": "public"}
    failure = cases[1].result[0]
    assert isinstance(failure, junitparser.Failure) and failure.type == "failed"
    assert failure.message == checks(reports["mutant"])[1].problem
    assert failure.text == checks(reports["mutant"])[1].message
    assert properties(cases[-1])["visibility"] == "hidden"

    assert (bob.tests, bob.errors) == (6, 6) and all(isinstance(c.result[0], junitparser.Error) for c in bob)
    assert str(stream(bob, junitparser.SystemErr)).startswith("Your file could not be loaded: SyntaxError")
    cuda = [c for c in carol if c.is_skipped]
    assert len(cuda) == carol.skipped == skipped and all(c.name.endswith("[cuda]") for c in cuda)
    assert all(c.result[0].message.startswith("Skipped: ") and c.time == 0 for c in cuda)


def test_junit_times_add_up(reports: dict[str, Report]) -> None:
    document = junitparser.JUnitXml.fromstring(junit_xml([("a", reports["two"]), ("b", reports["sigmoid"])]))
    suites = list(document)
    for suite in suites:
        assert suite.time == pytest.approx(sum(c.time for c in suite), abs=1e-9)
    assert document.time == pytest.approx(sum(s.time for s in suites), abs=1e-9)
    assert document.time == pytest.approx(reports["two"].seconds + reports["sigmoid"].seconds, abs=0.02)


def test_junit_carries_what_the_submission_printed(reports: dict[str, Report]) -> None:
    (suite,) = parse(junit_xml([("printing.py", reports["printing"])]))
    assert str(stream(suite, junitparser.SystemOut)).startswith("backward from a node holding -6.9288")
    assert stream(suite, junitparser.SystemErr) is None
    (magics,) = parse(junit_xml([("magics.ipynb", reports["magics"])]))
    assert "note: Cell 1, line 1: `%matplotlib inline` did not run" in str(stream(magics, junitparser.SystemOut))


def test_junit_escapes_names_and_drops_what_xml_cannot_hold(reports: dict[str, Report]) -> None:
    report = renamed(reports["mutant"], NASTY)
    text = junit_xml([(NASTY, report)], name=NASTY)
    (suite,) = parse(text)
    shown = NASTY.replace("\x1b", "\\x1b").replace("\x00", "\\x00")
    assert suite.name == f"{shown}: node-mul"
    cases = list(suite)
    assert cases[0].name == f"product value {shown}"
    assert cases[1].result[0].message.endswith(shown)
    assert str(stream(suite, junitparser.SystemOut)).startswith(shown)


def test_a_report_without_exercises_is_one_error(reports: dict[str, Report]) -> None:
    nothing = replace(reports["broken"], exercises=(), problems=("Your submission could not be graded: binary.",))
    (suite,) = parse(junit_xml([("binary.py", nothing)]))
    assert suite.name == "binary.py" and (suite.tests, suite.errors) == (1, 1)
    (case,) = list(suite)
    assert case.result[0].message == "Your submission could not be graded: binary."


def test_junit_is_deterministic(reports: dict[str, Report]) -> None:
    pairs = [(key, report) for key, report in reports.items()]
    assert junit_xml(pairs) == junit_xml(pairs)
    assert len(parse(junit_xml(pairs))) == len(reports) + 1  # "two" holds two exercises


# ------------------------------------------------------------------------------------------------
# Canvas gradebook


def columns(catalog: Catalog, *ids: str) -> list[ExerciseColumn]:
    return [ExerciseColumn(i, catalog.load(i).title, catalog.load(i).points) for i in ids]


def read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_the_gradebook_is_canvas_import_layout(reports: dict[str, Report], catalog: Catalog) -> None:
    rows = [
        StudentReport(student=Student(id="12", name=NASTY, submission="a.py", sis_user_id="S12",
                                      sis_login_id="jdoe", section="Section, A"), report=reports["mutant"]),
        StudentReport(student=Student(id="9", name="Sam Sigmoid", submission="b.py"), report=reports["sigmoid"]),
        StudentReport(student=Student(id="100", name="Both", submission="c.py"), report=reports["two"]),
        StudentReport(student=Student(id="3", name="Unlucky", submission="d.py"), report=reports["mutant"],
                      outcome="grader-error", error="Traceback ..."),
        StudentReport(student=Student(id="4", name="Unreadable", submission="e.py"), report=reports["broken"],
                      outcome="unreadable"),
        StudentReport(student=Student(id="5", name="Nothing known", submission="f.bin"),
                      report=replace(reports["broken"], exercises=()), outcome="unreadable"),
    ]
    text = gradebook_csv(rows, columns(catalog, "custom-sigmoid", "node-add", "node-mul"))
    assert text.splitlines()[0] == "Student,ID,SIS User ID,SIS Login ID,Section,custom-sigmoid,node-add,node-mul"
    points, *students = read(text)
    assert points == {"Student": "Points Possible", "ID": "", "SIS User ID": "", "SIS Login ID": "",
                      "Section": "", "custom-sigmoid": "12", "node-add": "10", "node-mul": "10"}
    assert [s["ID"] for s in students] == ["3", "4", "5", "9", "12", "100"]  # numeric ids in numeric order
    by_id = {s["ID"]: s for s in students}
    # CSV's quotes, commas and markup kept; control characters shown as text (a name may come from a file name)
    assert [by_id["12"][k] for k in ("Student", "SIS User ID", "SIS Login ID", "Section")] == \
        ['Doe, "J" <b>&amp;\\x1b[31m</b>; \\x00 é', "S12", "jdoe", "Section, A"]
    scores = {i: (s["custom-sigmoid"], s["node-add"], s["node-mul"]) for i, s in by_id.items()}
    assert scores == {
        "12": ("", "", "1"),  # a graded exercise: its points; one not graded: blank
        "9": ("12", "", ""),
        "100": ("", "10", "10"),
        "3": ("", "", ""),  # a grader error: blank, so no zero is imported by mistake
        "4": ("", "", "0"),  # unreadable: 0 for the exercise it answers
        "5": ("0", "0", "0"),  # unreadable, and not even known what it answers
    }


def test_the_gradebook_quotes_and_orders_the_same_way_every_time(reports: dict[str, Report],
                                                                 catalog: Catalog) -> None:
    rows = [StudentReport(student=Student(id=f"s{i}", name=f"Name, {i}\nwith a break", submission=f"{i}.py"),
                          report=reports["solution"]) for i in range(8)]
    cols = columns(catalog, "node-mul")
    text = gradebook_csv(rows, cols)
    assert text == gradebook_csv(random.Random(1).sample(rows, len(rows)), cols)
    assert len(text.splitlines()) == 2 + 8  # one line per student: names are put on one line
    assert [(s["Student"], s["node-mul"]) for s in read(text)[1:]] == \
        [(f"Name, {i} with a break", "10") for i in range(8)]


def test_fractional_points_are_plain_decimals(reports: dict[str, Report]) -> None:
    report = replace(reports["solution"], exercises=(
        ExerciseResult(id="x", title="x", checks=(replace(checks(reports["solution"])[0], score=1 / 3,
                                                          max_score=1.0),)),))
    text = gradebook_csv([StudentReport(student=Student(id="1", name="A", submission="a"), report=report)],
                         [ExerciseColumn("x", "x", 1234567.5)])
    points, student = read(text)
    assert points["x"] == "1234567.5" and student["x"] == "0.333333"


def test_a_name_that_looks_like_a_formula_stays_text() -> None:
    from grader.judge.report import Report
    from grader.outputs.formats.gradebook import gradebook_csv
    from grader.outputs.students import ExerciseColumn, Student, StudentReport

    report = Report(submission="x.py", sha256="0" * 64, seed=0, exercises=(), grader_version="0")
    student = Student(id="=HYPERLINK(\"http://evil\")", name="@SUM(A1:A9)", submission="x.py")
    text = gradebook_csv([StudentReport(student=student, report=report)], [ExerciseColumn("node-mul", "t", 10)])
    row = list(csv.reader(io.StringIO(text)))[2]
    assert row[0] == "'@SUM(A1:A9)" and row[1] == "'=HYPERLINK(\"http://evil\")"


def test_an_assignment_is_one_gradebook_column_holding_the_total(reports: dict[str, Report],
                                                                 catalog: Catalog) -> None:
    """One Canvas assignment for the whole assignment: a column titled by its id, worth its exercises' points."""
    rows = [
        StudentReport(student=Student(id="1", name="Both", submission="a.py"), report=reports["two"]),
        StudentReport(student=Student(id="2", name="Absent", submission=""), report=reports["two"],
                      outcome="missing"),
        StudentReport(student=Student(id="3", name="Unlucky", submission="c.py"), report=reports["two"],
                      outcome="grader-error"),
    ]
    exercises = columns(catalog, "node-add", "node-mul")
    total = ExerciseColumn("autograd", "autograd", sum(c.points for c in exercises))
    alone = read(gradebook_csv(rows, [total], total="autograd"))
    assert list(alone[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "autograd"]
    assert [r["autograd"] for r in alone] == ["20", "20", "0", ""]  # points possible, graded, missing, grader err
    both = read(gradebook_csv(rows, [total, *exercises], total="autograd"))
    assert [(r["autograd"], r["node-add"], r["node-mul"]) for r in both[1:]] == \
        [("20", "10", "10"), ("0", "0", "0"), ("", "", "")]


def test_render_is_the_one_place_a_format_is_chosen(reports: dict[str, Report]) -> None:
    from grader.outputs.feedback import feedback_html
    from grader.outputs.formats import FORMATS, render
    from grader.outputs.render_json import render_json
    from grader.outputs.render_text import render_text

    report = next(iter(reports.values()))
    student = Student(id="u42", name="Ada", submission="ada.py")
    now = datetime(2026, 12, 1, tzinfo=UTC)
    expected = {
        "text": render_text(report), "json": render_json(report),
        "gradescope": json.dumps(gradescope_results(report), indent=2) + "\n",
        "junit": junit_xml([("u42", report)]),
        "lti": json.dumps(lti_score(report, "u42", now), indent=2) + "\n",
        "feedback": feedback_html(report, student),
    }
    assert set(expected) == set(FORMATS)
    for name in FORMATS:
        assert render(name, report, student=student, now=now) == expected[name].encode("utf-8"), name
    # without a student, a report is labelled by its file's name, never the grading machine's path
    junit = render("junit", report)
    assert b'name="' + Path(report.submission).name.encode() in junit
    assert str(Path(report.submission).parent).encode() not in junit
    with pytest.raises(ValueError, match="unknown format 'csv'"):
        render("csv", report)  # type: ignore[arg-type]
