"""feedback.html: the student's page, from the same report as the text report, hidden checks withheld, offline."""

from __future__ import annotations

import dataclasses
import html
import re
import shutil
from pathlib import Path

import pytest
from browser import render

from grader.cli import main
from grader.judge.catalog import Catalog
from grader.judge.report import Report
from grader.judge.session import grade
from grader.outputs.feedback import feedback_html
from grader.outputs.render_text import render_text
from grader.outputs.students import Student
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"


@pytest.fixture(scope="module")
def swapped(catalog: Catalog, sandbox: Sandbox) -> Report:
    return grade(SAMPLES / "swapped_slopes.py", [catalog.load("node-mul")], sandbox=sandbox)


def text_of(page: str) -> str:
    """What a reader sees: the tags dropped, the entities decoded, the spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_page_says_what_the_text_report_says(swapped: Report) -> None:
    page = text_of(feedback_html(swapped, Student(id="u1", name="Alan Turing", submission="a.py")))
    text = " ".join(render_text(swapped).split())
    assert "Alan Turing" in page and "Score: 1/10 (1 of 6 checks passed)" in page
    assert "Score: 1/10 (1 of 6 checks passed)" in text
    for exercise in swapped.exercises:
        for check in exercise.checks:
            assert check.name in page
            if check.status == "passed" or check.visibility == "hidden":
                continue
            assert check.about in page and check.about in text
            for name, value in check.inputs:
                assert f"{name} = {value}" in page
            for line in check.code.strip().splitlines():
                assert line.strip() in page
            for observation in check.observations:
                if not observation.ok:
                    assert observation.expected in page and observation.got in page
            assert check.diagnosis is not None and check.diagnosis.hint in page and check.diagnosis.hint in text
    assert "Likely mistakes: swapped-locals (a known mistake, 5 checks)" in page


def test_hidden_checks_show_their_status_and_nothing_else(swapped: Report) -> None:
    exercise = swapped.exercises[0]
    hidden = [c for c in exercise.checks if c.visibility == "hidden"]
    assert hidden, "node-mul has a hidden check"
    # even a report that kept a hidden check's details (an older grader, a bug) shows none of them
    leaky = [dataclasses.replace(c, inputs=(("secret", "31.337"),), code="probe_the_secret()") for c in hidden]
    report = dataclasses.replace(swapped, output="printed a hidden input: 31.337\n", exercises=(
        dataclasses.replace(exercise, checks=tuple(c for c in exercise.checks if c.visibility != "hidden") + tuple(
            leaky)),))
    page = feedback_html(report)
    assert "31.337" not in page and "probe_the_secret" not in page
    assert "What your code printed is withheld" in page
    alone = feedback_html(dataclasses.replace(report, exercises=(dataclasses.replace(exercise, checks=tuple(leaky)),)))
    for check in hidden:
        assert check.name in text_of(alone) and f"{check.status.upper()[:4]}" in alone
        assert check.diagnosis is not None and check.diagnosis.hint not in alone  # named in the report, not here


def test_the_page_is_one_file_that_needs_nothing_else(swapped: Report) -> None:
    page = feedback_html(dataclasses.replace(swapped, submission="<script>alert(1)</script>.py"))
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert not re.search(r"<(link|img|iframe|object)\b", page) and "src=" not in page


def test_grade_feedback_rebuilds_every_page_of_a_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("correct_lesson_style", "swapped_slopes"):
        shutil.copy(SAMPLES / f"{name}.py", folder / f"{name}.py")
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1"]) == 0
    pages = sorted(out.glob("students/*/feedback.html"))
    assert len(pages) == 2
    before = {p: p.read_bytes() for p in pages}
    for page in pages:
        page.unlink()
    capsys.readouterr()
    assert main(["feedback", str(out)]) == 0
    assert "wrote 2 feedback pages" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in pages} == before  # the same report, the same page
    # the summary links each student to their page
    summary = (out / "summary.html").read_text()
    assert 'href="students/swapped_slopes/feedback.html"' in summary
    assert main(["feedback", str(tmp_path)]) == 2


def test_a_feedback_page_opens_offline_in_a_browser(swapped: Report, tmp_path: Path) -> None:
    page = tmp_path / "feedback.html"
    page.write_text(feedback_html(swapped))
    dom = render(page)
    assert "Score: 1/10" in dom and "swapped-locals" in dom
