"""The class summary: its numbers against real graded reports, its determinism, and a page that is safe offline."""

from __future__ import annotations

import dataclasses
import json
import statistics
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader import __version__
from grader.judge.catalog import Catalog
from grader.judge.oracle import expected_values
from grader.judge.report import CheckResult, ExerciseResult, Report
from grader.judge.session import grade
from grader.outputs.error_kinds import error_kind
from grader.outputs.html_page import num
from grader.outputs.students import ExerciseColumn, Student, StudentReport
from grader.outputs.summary import BINS, class_summary
from grader.outputs.summary_html import summary_html
from grader.outputs.summary_schema import Summary
from grader.run.inputs import draw_inputs
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"
XSS = "<script>alert(1)</script>"
#: student id -> the sample it handed in; the buggy one gets an id that is markup
CLASS = {
    "correct": SAMPLES / "correct_lesson_style.py",
    XSS: SAMPLES / "swapped_slopes.py",
    "overwrite": SAMPLES / "overwrite.py",
    "no_rmul": SAMPLES / "no_rmul.py",
    "syntax": SAMPLES / "syntax_error.py",
    "loops": SAMPLES / "infinite_loop.py",
    "exits": SAMPLES / "os_exit.py",
    "starter": ROOT / "exercises" / "node-mul" / "starter.py",
}


def student(student_id: str) -> Student:
    return Student(id=student_id, name=f"Name of {student_id}", submission=f"{student_id}.py")


def empty_report(name: str) -> Report:
    """What a batch keeps for a submission it could not grade: a report with no checks."""
    return Report(submission=name, sha256="", seed=0, exercises=(), grader_version=__version__)


@pytest.fixture(scope="module")
def klass(catalog: Catalog, sandbox: Sandbox) -> tuple[list[StudentReport], list[ExerciseColumn]]:
    """A class graded once: node-mul samples, two on first-gradient (a rule breaker, a notebook whose function
    is in a cell that does not parse), a submission that was unreadable and one the grader failed on."""
    node_mul, first_gradient = catalog.load("node-mul"), catalog.load("first-gradient")
    # The trusted side imports torch on first use; the first student's time should not carry that.
    expected_values(node_mul, draw_inputs(node_mul, 0))
    rows = [StudentReport(student=student(sid), report=grade(path, [node_mul], sandbox=sandbox,
                                                             time_limit=1 if sid == "loops" else None))
            for sid, path in CLASS.items()]
    by_hand = grade(ROOT / "submissions" / "first-gradient" / "by_hand.py", [first_gradient], sandbox=sandbox)
    wrong_cell = grade(ROOT / "submissions" / "notebooks" / "function_in_the_wrong_cell.ipynb", [first_gradient],
                       sandbox=sandbox)
    rows += [
        StudentReport(student=student("by_hand"), report=by_hand),
        StudentReport(student=student("wrong_cell"), report=wrong_cell),
        StudentReport(student=student("unreadable"), report=empty_report("broken.ipynb"), outcome="unreadable"),
        StudentReport(student=student("unlucky"), report=empty_report("fine.py"), outcome="grader-error",
                      error="Traceback (most recent call last):\nRuntimeError: the zygote died"),
    ]
    columns = [ExerciseColumn(e.id, e.title, sum(p.points for p in e.probes)) for e in (node_mul, first_gradient)]
    return rows, columns


@pytest.fixture(scope="module")
def summary(klass: tuple[list[StudentReport], list[ExerciseColumn]]) -> Summary:
    return class_summary(*klass)


def graded_reports(rows: list[StudentReport]) -> list[Report]:
    return [r.report for r in rows if r.outcome == "graded"]


@pytest.mark.slow
def test_counts(summary: Summary) -> None:
    assert summary["counts"] == {"students": 12, "graded": 10, "unreadable": 1, "missing": 0, "grader_errors": 1,
                                 "not_on_roster": 0}
    assert summary["grader_errors"] == [{"student": "unlucky", "name": "Name of unlucky",
                                         "error": "Traceback (most recent call last):\nRuntimeError: the zygote died"}]



@pytest.mark.slow
def test_mistakes_are_counted_per_student_across_the_class(summary: Summary) -> None:
    found = {(m["exercise"], m["mistake"]): m for m in summary["mistakes"]}
    assert found[("node-mul", "swapped-locals")]["students"] == 1
    assert found[("node-mul", "swapped-locals")]["example_student"] == XSS
    assert found[("node-mul", "overwrite-not-accumulate")]["checks"][0] == "a node times itself"
    assert found[("first-gradient", "derivatives-by-hand")]["kind"] == "known-mistake"
    assert all(m["kind"] != "unknown" for m in summary["mistakes"])


def test_score_distribution_matches_the_reports(klass: tuple[list[StudentReport], list[ExerciseColumn]],
                                                summary: Summary) -> None:
    reports = graded_reports(klass[0])
    scores = summary["scores"]
    # The gradebook's numbers: every graded score, and 0 for the unreadable one; the grader error has none.
    points = [r.score for r in reports] + [0.0]
    assert scores["scored"] == len(points) == 11
    assert scores["mean"] == pytest.approx(statistics.fmean(points))
    assert scores["median"] == statistics.median(points)
    assert (scores["min"], scores["max"]) == (0.0, 10.0)
    assert scores["max_score"] == 20.0  # node-mul and first-gradient, 10 each
    histogram = scores["histogram"]
    assert len(histogram) == BINS and sum(b["count"] for b in histogram) == len(points)
    assert [(b["low"], b["high"]) for b in histogram][::9] == [(0, 10), (90, 100)]
    assert histogram[9]["count"] == 1  # 10/10 lands in the last bin
    assert histogram[8]["count"] == 1  # no_rmul: 8/10
    assert histogram[3]["count"] == 1  # overwrite: 3/10, not pushed into 20-30% by float error
    by_id = {s["student"]: s for s in scores["students"]}
    assert list(by_id) == sorted(by_id)
    assert by_id["no_rmul"] == {**by_id["no_rmul"], "score": 8.0, "max_score": 10.0, "percent": 80.0}
    assert by_id["unreadable"]["score"] == 0.0 and by_id["unreadable"]["outcome"] == "unreadable"
    assert by_id["unlucky"]["score"] is None and by_id["unlucky"]["percent"] is None


def test_exercises(klass: tuple[list[StudentReport], list[ExerciseColumn]], summary: Summary) -> None:
    node_mul = [e for r in graded_reports(klass[0]) for e in r.exercises if e.id == "node-mul"]
    stats = {e["id"]: e for e in summary["exercises"]}
    assert list(stats) == ["node-mul", "first-gradient"]  # the columns' order
    assert stats["node-mul"]["graded"] == len(node_mul) == len(CLASS)
    # Over the students the gradebook scores in the column, as the class's mean is: the unreadable student (whose
    # report names no exercise) has 0 in every column; the grader error has none.
    assert stats["node-mul"]["scored"] == len(CLASS) + 1
    assert stats["node-mul"]["mean_score"] == pytest.approx(statistics.fmean([*(e.score for e in node_mul), 0.0]))
    assert stats["node-mul"]["max_points"] == 10.0
    assert stats["node-mul"]["full_marks"] == 1 and stats["node-mul"]["full_marks_rate"] == pytest.approx(1 / 9)
    assert stats["first-gradient"] == {**stats["first-gradient"], "graded": 2, "scored": 3, "mean_score": 0.0,
                                       "full_marks": 0}


def test_pass_rates_per_check(klass: tuple[list[StudentReport], list[ExerciseColumn]], summary: Summary) -> None:
    results = [c for r in graded_reports(klass[0]) for e in r.exercises if e.id == "node-mul" for c in e.checks]
    checks = [c for c in summary["checks"] if c["exercise"] == "node-mul"]
    assert [c["check"] for c in checks] == [c.name for c in results[:len(checks)]]  # the spec's order
    for stats in checks:
        mine = [c for c in results if c.name == stats["check"]]
        passed = sum(c.status == "passed" for c in mine)
        assert stats["passed"] + stats["failed"] + stats["error"] + stats["skipped"] == len(mine) == len(CLASS)
        assert stats["passed"] == passed and stats["pass_rate"] == pytest.approx(passed / len(mine))
    product = checks[0]
    assert product == {**product, "check": "product value", "passed": 6, "error": 2, "not_run": 1}
    assert next(c for c in checks if c["check"] == "a longer chain")["visibility"] == "hidden"


def test_failing_checks_count_what_ran(summary: Summary) -> None:
    failing = summary["failing_checks"]
    counts = [f["failing"] for f in failing]
    assert counts == sorted(counts, reverse=True)
    top = failing[0]
    # swapped_slopes answers it wrong; the time limit, os._exit and the stub stop while it runs; the file
    # that does not load never runs it, so it is left to the error kinds.
    assert (top["exercise"], top["check"]) == ("node-mul", "gradients under a factor")
    assert (top["failing"], top["failed"], top["error"], top["students"]) == (4, 1, 3, 8)
    assert top["example_student"] == XSS and "x.grad: expected" in top["example_problem"]


def test_error_kinds_name_the_cause(summary: Summary) -> None:
    kinds = {k["kind"]: k for k in summary["error_kinds"]}
    expected = {"SyntaxError": "syntax", "timeout": "loops", "exited": "exits", "TypeError": "no_rmul",
                "not attempted": "starter", "rule violation": "by_hand", "missing definition": "wrong_cell"}
    assert set(kinds) == set(expected)
    for kind, example in expected.items():
        assert kinds[kind]["example_student"] == example and kinds[kind]["students"] == 1
    # The checks a stop or a load error cost are counted against that cause, not as errors of their own.
    assert kinds["SyntaxError"]["checks"] == 6
    assert kinds["SyntaxError"]["example_problem"].startswith("Your file could not be loaded: SyntaxError: ")
    assert kinds["timeout"]["checks"] == 5 and kinds["TypeError"]["checks"] == 1
    # The notebook's rule checker cannot parse the cell, so a rule looks broken too; the name it lacks is the cause.
    assert kinds["rule violation"]["checks"] == 5 and kinds["rule violation"]["students"] == 1
    assert "needs `neuron_grads`" in kinds["missing definition"]["example_problem"]


@pytest.mark.parametrize(("problem", "kind"), [
    ("Your code raised RuntimeError: boom (line 3).", "RuntimeError"),
    ("Your code raised torch.OutOfMemoryError: CUDA out of memory.", "torch.OutOfMemoryError"),
    ("Your code raised KeyError.", "KeyError"),
    ("Your file could not be loaded: SyntaxError: invalid syntax (line 1).", "SyntaxError"),
    ("A cell raised NameError: name 'x' is not defined; grading went on with the cells after it.", "NameError"),
    ("Your code did not finish within 10 s (the time limit) while running this check.", "timeout"),
    ("Not implemented yet: implement Node.__mul__ (line 4).", "not attempted"),
    ("Your code crashed (killed by SIGSEGV) while running this check.", "crash"),
    ("On CUDA: Your code crashed (killed by SIGSEGV) during check 'x'.", "crash"),
    ("Your code ended the process with exit code 3 while running this check.", "exited"),
    ("Your code was stopped by SIGXCPU while running this check.", "resource limit"),
    ("Your code breaks a rule of exercise e: it imports torch (line 2). No check is scored until it is fixed.",
     "rule violation"),
    ("Your file does not define `Node` (a class): found nothing; exercise node-mul needs it.", "missing definition"),
    ("y: expected 1, but reading it raised ValueError: no.", "ValueError"),
    # the student's own message follows the grader's words and cannot change the kind
    ("Your code raised ValueError: Your code did not finish within 1 s.", "ValueError"),
    ("x.grad: expected -3.29686, got 9.03496.", None),
    ("This hidden check did not pass; its details are withheld.", None),
])
def test_error_kind(problem: str, kind: str | None) -> None:
    assert error_kind(problem) == kind


def test_slowest_first(klass: tuple[list[StudentReport], list[ExerciseColumn]], summary: Summary) -> None:
    slowest = summary["slowest"]
    seconds = [s["seconds"] for s in slowest]
    assert seconds == sorted(seconds, reverse=True) and len(slowest) == 10  # graded students only
    # the file that loops ran its whole 1 s limit; on a loaded machine another student's grading may take as
    # long, so its place is not asserted, only that it is listed with its time
    loops = next(s for s in slowest if s["student"] == "loops")
    assert loops["seconds"] >= 1.0 and slowest[0]["seconds"] >= loops["seconds"]


def test_deterministic_whatever_the_order(klass: tuple[list[StudentReport], list[ExerciseColumn]],
                                          summary: Summary) -> None:
    rows, columns = klass
    again = class_summary(list(reversed(rows)), columns)
    assert json.dumps(again, sort_keys=True) == json.dumps(summary, sort_keys=True)
    assert json.dumps(again) == json.dumps(summary)  # key order too: byte-identical summary.json
    assert summary_html(again) == summary_html(summary)


class StrictParser(HTMLParser):
    """Fails on unbalanced elements and remembers every tag and attribute value."""

    VOID = frozenset({"meta", "br", "hr", "img", "link", "input"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [value or "" for _, value in attrs]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [value or "" for _, value in attrs]

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> StrictParser:
    parser = StrictParser()
    parser.feed(page)
    parser.close()
    assert parser.stack == [], f"unclosed: {parser.stack}"
    return parser


def test_the_page_is_one_offline_file_with_escaped_text(summary: Summary) -> None:
    page = summary_html(summary)
    assert "http://" not in page and "https://" not in page and "<script" not in page
    parsed = parse(page)
    assert "script" not in parsed.tags and "link" not in parsed.tags and "img" not in parsed.tags
    assert XSS not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert XSS in "".join(parsed.text)  # escaped, so the reader sees the id as it is
    svgs = page.split("<svg")[1:]  # the histogram; every other chart is a table of bars
    assert len(svgs) == 1 and svgs[0].split(">", 1)[1].lstrip().startswith("<title>")
    assert page.count('<table class="bars" aria-label="') >= 5
    # the numbers are on the bars as text: a check's pass count, an exercise's mean, the histogram's counts
    mean = next(x for x in summary["exercises"] if x["id"] == "node-mul")
    assert "6/8 passed (75%)" in page and "SyntaxError" in page
    assert f"{num(mean['mean_score'])} / 10 ({100 * mean['mean_score'] / 10:.0f}%) over 9 students" in page
    # each diagnosed mistake is a bar too, with how many of the exercise's students made it
    mistakes = page.split("<h2>Diagnosed mistakes</h2>")[1].split("</section>")[0]
    chart = mistakes.split('<table class="bars"')[1].split("</table>")[0]
    first = summary["mistakes"][0]
    graded = next(e["graded"] for e in summary["exercises"] if e["id"] == first["exercise"])
    assert f"{first['exercise']}: {first['mistake']}" in chart
    assert f"{first['students']} student{'s' if first['students'] != 1 else ''} of {graded}" in chart
    assert chart.count("<tr") == len(summary["mistakes"])
    assert page.startswith("<!DOCTYPE html>") and "<title>autograd-grader: class summary</title>" in page


def test_text_from_specs_and_submissions_is_escaped(klass: tuple[list[StudentReport], list[ExerciseColumn]]) -> None:
    rows, _ = klass
    evil = "<img src=x onerror=alert(1)>"
    by_hand = rows[len(CLASS)]
    exercise = by_hand.report.exercises[0]
    check = dataclasses.replace(exercise.checks[0], name=evil, status="error",
                                problem=f"Your code raised {evil}: {evil}")
    report = dataclasses.replace(by_hand.report, exercises=(dataclasses.replace(
        exercise, title=evil, checks=(check, *exercise.checks[1:])),))
    row = dataclasses.replace(by_hand, report=report)
    summary = class_summary([row], [ExerciseColumn(exercise.id, evil, 10.0)])
    page = summary_html(summary, title=evil)
    assert "<img" not in page and "onerror=alert(1)&gt;" in page
    parse(page)


def test_an_empty_class() -> None:
    summary = class_summary([], [])
    assert summary["counts"] == {"students": 0, "graded": 0, "unreadable": 0, "missing": 0, "grader_errors": 0,
                                 "not_on_roster": 0}
    scores = summary["scores"]
    assert scores["mean"] is None and scores["median"] is None and scores["min"] is None
    assert sum(b["count"] for b in scores["histogram"]) == 0 and scores["students"] == []
    assert not summary["exercises"] and not summary["checks"] and not summary["error_kinds"]
    assert not summary["failing_checks"] and not summary["slowest"] and not summary["grader_errors"]
    assert summary["attention"] == []
    page = summary_html(summary)
    parse(page)
    json.dumps(summary, allow_nan=False)


def test_a_class_where_every_maximum_is_zero() -> None:
    """A CUDA-only exercise graded where there is no GPU: every check skipped, nothing to score."""
    skipped = CheckResult(name="on the GPU [cuda]", about="", status="skipped", score=0.0, max_score=0.0,
                          problem="Skipped: CUDA is not available on this machine.", visibility="public")
    exercise = ExerciseResult(id="gpu-only", title="GPU only", checks=(skipped,))
    rows = [StudentReport(student=student(sid), report=dataclasses.replace(empty_report(f"{sid}.py"),
                                                                           exercises=(exercise,)))
            for sid in ("a", "b")]
    summary = class_summary(rows, [ExerciseColumn("gpu-only", "GPU only", 0.0)])
    scores = summary["scores"]
    assert scores["unscored"] == 2 and sum(b["count"] for b in scores["histogram"]) == 0
    assert scores["mean"] == 0.0 and scores["mean_percent"] is None
    assert [s["percent"] for s in scores["students"]] == [None, None]
    assert summary["exercises"][0] == {**summary["exercises"][0], "full_marks_rate": None, "mean_percent": None}
    assert summary["checks"][0] == {**summary["checks"][0], "skipped": 2, "pass_rate": None}
    assert not summary["failing_checks"] and not summary["error_kinds"]
    page = summary_html(summary)
    parse(page)
    assert "n/a" in page
    # a device no student's run had is a line, not a row of empty bars
    assert '<th scope="row">on the GPU [cuda]</th>' not in page
    assert "1 check skipped for every student, so not shown" in page and "on the GPU [cuda]" in page
    json.dumps(summary, allow_nan=False)


def test_who_needs_attention_comes_first_each_named_and_linked(summary: Summary) -> None:
    assert [a["kind"] for a in summary["attention"]] == ["grader-error", "unreadable", "zero", "timeout"]
    named = {a["kind"]: [(s["student"], s["name"]) for s in a["students"]] for a in summary["attention"]}
    assert named == {"grader-error": [("unlucky", "Name of unlucky")],
                     "unreadable": [("unreadable", "Name of unreadable")], "timeout": [("loops", "Name of loops")],
                     # 0 for a reason each can fix: a file that never loaded, the starter, a rule, a missing function
                     "zero": [("by_hand", "Name of by_hand"), ("starter", "Name of starter"),
                              ("syntax", "Name of syntax"), ("wrong_cell", "Name of wrong_cell")]}
    why = {f["student"]: f["detail"] for a in summary["attention"] if a["kind"] == "zero" for f in a["students"]}
    assert why["syntax"].startswith("SyntaxError: Your file could not be loaded: SyntaxError")
    assert why["starter"].startswith("not attempted: ") and why["wrong_cell"].startswith("missing definition: ")
    page = summary_html(summary)
    assert page.index('id="attention"') < page.index("<h2>Scores</h2>")  # before anything to scroll past
    attention = page.split('id="attention"')[1].split("</section>")[0]
    assert 'href="students/unlucky/feedback.html"' in attention and "RuntimeError: the zygote died" in attention
    assert "ran out of time: gradients under a factor" in attention
    # every student has a row, linked to their page
    table = page.split('id="students"')[1].split("</section>")[0]
    assert table.count('<tr class="state-') == summary["counts"]["students"]
    assert 'href="students/by_hand/feedback.html"' in table


def test_long_names_are_shown_whole(klass: tuple[list[StudentReport], list[ExerciseColumn]]) -> None:
    rows, columns = klass
    name = "a check whose name is far longer than any label column of a chart could ever hold in one line of text"
    row = rows[0]
    exercise = row.report.exercises[0]
    renamed = dataclasses.replace(exercise, checks=(dataclasses.replace(exercise.checks[0], name=name),
                                                    *exercise.checks[1:]))
    page = summary_html(class_summary([dataclasses.replace(row, report=dataclasses.replace(
        row.report, exercises=(renamed,)))], columns))
    assert f'<th scope="row">{name}</th>' in page and "…" not in page


def test_a_student_who_tripped_many_refusals_is_listed_once() -> None:
    """A hostile sample can trip dozens of refusals: the instructor reads its name once, with the first and a count."""
    refused = tuple(f"your code called thing{i}(); it was refused" for i in range(20))
    rows = [StudentReport(student=student(sid), report=dataclasses.replace(empty_report(f"{sid}.py"), integrity=lines))
            for sid, lines in (("h", refused), ("k", refused[:1]))]
    (group,) = [g for g in class_summary(rows, [])["attention"] if g["kind"] == "integrity"]
    assert [(f["student"], f["detail"]) for f in group["students"]] == [
        ("h", "your code called thing0(); it was refused (and 19 more)"),
        ("k", "your code called thing0(); it was refused")]
