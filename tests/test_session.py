"""One grading session behind every front end (grader.judge.session): it owns the sandbox and the
caches, reads exercises again when their files change, and says once what a failed grading is
called, in the same words for a batch, the server and `grade FILE`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.core.errors import GraderError, SpecError
from grader.course.batch import Batch, grade_entry
from grader.course.classlist import discover
from grader.course.manifest import Setup
from grader.judge import grading
from grader.judge.catalog import Catalog
from grader.judge.session import (
    GRADER_FAILED,
    UNREADABLE,
    GradingSession,
    Read,
    Source,
    grade,
)
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"
SWAPPED = ROOT / "submissions" / "node-mul" / "swapped_slopes.py"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(lean=True) as opened:
        yield opened


def _broken(*args: object, **kwargs: object) -> None:
    raise RuntimeError("a bug in the grader")


def test_a_grader_bug_is_a_grader_error_in_the_sessions_words(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    exercise = Catalog(ROOT / "exercises").load("node-mul")
    monkeypatch.setattr(grading, "grade_submission", _broken)
    graded = GradingSession(sandbox).grade(load_submission(CORRECT), [exercise], seed=3)
    assert graded.outcome == "grader-error" and "RuntimeError: a bug in the grader" in graded.error
    assert graded.report.problems == (GRADER_FAILED,) and "not your fault" in GRADER_FAILED
    assert graded.report.score == 0 and graded.report.max_score == exercise.points
    assert isinstance(graded.failure, RuntimeError)
    with pytest.raises(RuntimeError, match="a bug in the grader"):  # `grade FILE` stops on it
        grade(CORRECT, [exercise], sandbox=sandbox)


def test_a_source_that_cannot_be_read_is_the_students_and_a_spec_the_courses(
    sandbox: Sandbox,
) -> None:
    exercise = Catalog(ROOT / "exercises").load("node-mul")

    def unreadable(exercises: object) -> Read:
        raise GraderError("work.py is a binary file")

    def bad_spec(exercises: object) -> Read:
        raise SpecError("exercise.yaml, line 3: points: must be a number")

    session = GradingSession(sandbox)
    source = Source(name="work.py", sha256="0" * 64, read=unreadable)
    graded = session.grade(source, [exercise], seed=0)
    assert graded.outcome == "unreadable" and not graded.error
    assert graded.report.problems == (UNREADABLE + "work.py is a binary file",)
    assert graded.report.submission == "work.py"
    spec = session.grade(Source(name="work.py", sha256="0" * 64, read=bad_spec), [exercise], seed=0)
    assert spec.outcome == "grader-error" and spec.report.problems == (GRADER_FAILED,)


def test_a_batch_words_a_grader_error_as_the_session_does(
    tmp_path: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(SWAPPED, folder / "swapped.py")
    catalog = Catalog(ROOT / "exercises")
    setup = Setup(exercise_ids=("node-mul",), devices=("cpu",))
    batch = Batch(setup=setup, catalog=catalog, out=tmp_path / "out", fingerprint="f")
    entry = discover(folder).entries[0]
    session = GradingSession(sandbox, devices=("cpu",))
    assert grade_entry(entry, batch, session).score == 1  # graded in the session, for real
    monkeypatch.setattr(grading, "grade_submission", _broken)
    done = grade_entry(entry, batch, session)
    assert done.outcome == "grader-error" and "a bug in the grader" in done.error
    report = json.loads((tmp_path / "out" / "students" / "swapped" / "report.json").read_text())
    assert report["problems"] == [GRADER_FAILED]


def test_exercises_by_id_are_read_again_once_their_files_change(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    shutil.copytree(ROOT / "exercises" / "node-mul", tmp_path / "node-mul")
    spec = tmp_path / "node-mul" / "exercise.yaml"
    session = GradingSession(sandbox, devices=("cpu",), catalog=Catalog(tmp_path))
    first = session.grade(load_submission(CORRECT), ["node-mul"], seed=0).report
    spec.write_text(spec.read_text().replace("title: Multiplication", "title: Products", 1))
    second = session.grade(load_submission(CORRECT), ["node-mul"], seed=0).report
    assert first.exercises[0].title.startswith("Multiplication")
    assert second.exercises[0].title.startswith("Products")
    assert first.score == second.score == 10
