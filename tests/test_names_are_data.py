"""An exercise id a submission names is data, never a path: only the ids the course's exercises folder lists are
looked up, and a spec is read from that folder alone."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from grader.cli import main
from grader.core.errors import GraderError
from grader.judge import catalog as catalog_module
from grader.judge.catalog import Catalog, UnknownExercise

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "submissions" / "hostile" / "brings-its-own-spec"
Capture = pytest.CaptureFixture[str]


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """exercises/ with node-mul, and beside it a spec a student planted, whose oracle would write a marker."""
    root = tmp_path / "course" / "exercises"
    shutil.copytree(ROOT / "exercises" / "node-mul", root / "node-mul")
    planted = tmp_path / "course" / "brings-its-own-spec"
    shutil.copytree(PLANTED, planted)
    marker = tmp_path / "the-oracle-ran"
    (planted / "solution.py").write_text(f"open({str(marker)!r}, 'w').close()\n\ndef answer():\n    return 1.0\n")
    real = catalog_module.load_exercise
    LOADED.clear()
    monkeypatch.setattr(catalog_module, "load_exercise", lambda path: LOADED.append(path) or real(path))
    return root


#: every spec path the catalog read during the test
LOADED: list[Path] = []


def hostile_ids(root: Path) -> list[str]:
    planted = root.parent / "brings-its-own-spec"
    return [
        "../brings-its-own-spec", str(planted), str(root / "node-mul"), "node-mul/../node-mul", "./node-mul",
        "..", ".", "", "/", "node-mul/", "%2e%2e%2fbrings-its-own-spec", "..%2Fbrings-its-own-spec",
        "..\uff0fbrings-its-own-spec",  # a fullwidth solidus
        "\uff4eode-mul",  # a fullwidth n, which NFKC makes node-mul
        "node\u2010mul",  # a hyphen that looks like one
        "node-mul\0", "node-mul\n", " node-mul", "NODE-MUL", "assignments", "\ud800", "x" * 100_000,
    ]


def only_inside(root: Path) -> bool:
    return all(path.resolve().is_relative_to(root.resolve()) for path in LOADED)


def test_only_listed_ids_load_and_only_from_the_exercises_folder(course: Path) -> None:
    catalog = Catalog(course)
    assert catalog.ids() == ["node-mul"] and catalog.load("node-mul").id == "node-mul"
    for ident in hostile_ids(course):
        with pytest.raises(UnknownExercise) as raised:
            catalog.load(ident)
        assert len(str(raised.value)) < 400  # quoted short, escaped: a wall of text or a NUL never reaches a message
        with pytest.raises(UnknownExercise, match="which is not one of this course's exercises"):
            catalog.declared(ident, None, "hw.ipynb's notebook metadata")
        with pytest.raises(UnknownExercise):
            catalog.declared(None, ident, "hw.ipynb's notebook metadata")
    assert only_inside(course) and not (course.parent.parent / "the-oracle-ran").exists()


def test_links_that_lead_out_of_the_exercises_folder_are_not_exercises(course: Path) -> None:
    planted = course.parent / "brings-its-own-spec"
    os.symlink(planted, course / "brings-its-own-spec")  # a folder linked from outside
    (course / "node-sub").mkdir()
    os.symlink(planted / "exercise.yaml", course / "node-sub" / "exercise.yaml")  # a spec linked from outside
    (course / "assignments").mkdir()
    os.symlink(ROOT / "exercises" / "assignments" / "autograd.yaml", course / "assignments" / "autograd.yaml")
    catalog = Catalog(course)
    assert catalog.ids() == ["node-mul"] and catalog.assignment_ids() == []
    for ident in ("brings-its-own-spec", "node-sub"):
        with pytest.raises(UnknownExercise):
            catalog.load(ident)
    with pytest.raises(UnknownExercise):
        catalog.load_assignment("autograd")
    assert only_inside(course)


def notebook(path: Path, exercise: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("def answer():\n    return 1.0"))
    nb.metadata["autograd_grader"] = {"exercise": exercise}
    path.write_text(json.dumps(nb))  # ASCII, escapes and all: a lone surrogate is written as \ud800
    return path


@pytest.mark.parametrize("pick", [0, 1, 12, 15, 20])  # relative, absolute, fullwidth solidus, NUL, lone surrogate
def test_grade_a_notebook_or_a_folder_naming_a_path_is_one_clear_line(course: Path, tmp_path: Path, capsys: Capture,
                                                                       pick: int) -> None:
    ident = hostile_ids(course)[pick]
    folder = tmp_path / "handed-in"
    shutil.copytree(course.parent / "brings-its-own-spec", folder)  # the folder carries its own exercise.yaml
    notebook(folder / "answer.ipynb", ident)
    for target in (folder / "answer.ipynb", folder):
        assert main([str(target), "--exercises", str(course)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: answer.ipynb's notebook metadata names exercise ") and err.count("\n") == 1, err
        assert "which is not one of this course's exercises (node-mul). Name one of them." in err
    assert only_inside(course) and not (tmp_path / "the-oracle-ran").exists()


def test_a_batch_without_exercise_reports_such_students_unreadable_and_grades_the_others(
        course: Path, tmp_path: Path, capsys: Capture) -> None:
    if os.geteuid() != 0:
        pytest.skip("a batch grades under landlock or stronger, which needs root here")
    folder = tmp_path / "class"
    folder.mkdir()
    planted = course.parent / "brings-its-own-spec"
    shutil.copytree(planted, folder / "a-relative")  # graded first, by the one worker: classmates after it
    notebook(folder / "a-relative" / "answer.ipynb", "../brings-its-own-spec")
    notebook(folder / "b-absolute.ipynb", str(planted))
    notebook(folder / "c-nul.ipynb", "node-mul\0")
    for name in ("d_honest", "e_honest"):
        shutil.copy(ROOT / "submissions" / "node-mul" / "correct_lesson_style.py", folder / f"{name}.py")
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "-j", "1", "--exercises", str(course)]) == 0
    printed = capsys.readouterr().out
    assert "needs attention: unreadable (3): a-relative, b-absolute, c-nul" in printed
    done = {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/done.json")}
    assert {name: d["outcome"] for name, d in done.items()} == {
        "a-relative": "unreadable", "b-absolute": "unreadable", "c-nul": "unreadable",
        "d_honest": "graded", "e_honest": "graded"}
    scores = {name: json.loads((out / "students" / name / "report.json").read_text())["score"] for name in done}
    assert scores == {"a-relative": 0, "b-absolute": 0, "c-nul": 0, "d_honest": 10, "e_honest": 10}
    assert only_inside(course) and not (tmp_path / "the-oracle-ran").exists()


def test_an_unknown_id_from_the_command_line_still_suggests_the_near_ones(course: Path) -> None:
    with pytest.raises(GraderError, match="Did you mean node-mul"):
        Catalog(course).load("node-mull")
