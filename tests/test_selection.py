"""Multi-file submissions: which file is graded, what may be imported beside it, and why, when nothing fits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grader.cli import main
from grader.core.errors import GraderError
from grader.course.selection import SubmittedFile, Target, digest, files_in, load_selected, select
from grader.judge.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
ENGINE = (ROOT / "submissions" / "node-mul" / "correct_lesson_style.py").read_text()
UNDECLARED = ENGINE.replace("# exercise: node-mul\n", "")
HELPER = "def check_close(a, b):\n    return abs(a - b) < 1e-9\n"
Capture = pytest.CaptureFixture[str]


def folder(tmp_path: Path, files: dict[str, str]) -> list[SubmittedFile]:
    root = tmp_path / "student"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return files_in(root)


def target(catalog: Catalog, exercise: str = "node-mul") -> Target:
    return Target.of([catalog.load(exercise)])


def test_a_lone_file_is_graded_whatever_it_holds(tmp_path: Path, catalog: Catalog) -> None:
    files = folder(tmp_path, {"anything.py": HELPER, "README.md": "notes"})
    selection = select(files, target(catalog))
    assert selection.graded is not None and selection.graded.name == "anything.py" and not selection.problem


def test_the_only_file_defining_what_the_exercise_asks_for_is_graded(tmp_path: Path, catalog: Catalog) -> None:
    files = folder(tmp_path, {"engine.py": UNDECLARED, "helpers.py": HELPER, "my notes.py": "x = 1\n"})
    selection = select(files, target(catalog))
    assert selection.graded is not None and selection.graded.name == "engine.py"
    assert [s.name for s in selection.siblings] == ["helpers.py"]  # "my notes.py" is no module name
    assert selection.left_out == ("my notes.py",)
    submission = load_selected(selection, files)
    assert submission.name == "engine.py" and [c.label for c in submission.siblings] == ["helpers.py"]
    assert submission.siblings[0].source == HELPER
    assert submission.notes[0] == ("Graded engine.py (the only file that defines `Node`); importable beside it: "
                                   "helpers.py; not graded: my notes.py.")
    # the content hash covers every file that could be graded: a changed helper means grading again
    before = submission.sha256
    (tmp_path / "student" / "helpers.py").write_text(HELPER + "# changed\n")
    assert digest(files) != before


def test_the_exercise_line_decides_among_files_that_all_define_it(tmp_path: Path, catalog: Catalog) -> None:
    files = folder(tmp_path, {"draft.py": UNDECLARED, "final.py": ENGINE})
    selection = select(files, target(catalog))
    assert selection.graded is not None and selection.graded.name == "final.py"
    assert selection.reason == "its '# exercise:' line names node-mul"


def test_notebook_metadata_decides_too(tmp_path: Path, catalog: Catalog) -> None:
    notebook = (ROOT / "submissions" / "notebooks" / "first_gradient_buggy.ipynb").read_text()
    files = folder(tmp_path, {"scratch.ipynb": json.dumps({**json.loads(notebook), "metadata": {}}),
                              "answer.ipynb": notebook})
    selection = select(files, target(catalog, "first-gradient"))
    assert selection.graded is not None and selection.graded.name == "answer.ipynb"
    assert selection.reason.startswith("its notebook metadata names first-gradient")
    assert selection.siblings == ()  # notebooks are never imported


def test_no_file_that_answers_is_a_problem_listing_each_file(tmp_path: Path, catalog: Catalog) -> None:
    files = folder(tmp_path, {"helpers.py": HELPER, "broken.py": "def f(:\n", "data.py": "N = 3\n"})
    selection = select(files, target(catalog))
    assert selection.graded is None
    assert selection.problem.startswith("The grader could not tell which file to grade as exercise node-mul: no file "
                                        "defines `Node`. The files: ")
    listed = ("broken.py (does not parse as Python)", "data.py (defines N)", "helpers.py (defines check_close)")
    for described in listed:
        assert described in selection.problem
    assert "Put the line '# exercise: node-mul' at the top of the file to grade" in selection.problem


def test_two_files_that_both_answer_is_a_problem(tmp_path: Path, catalog: Catalog) -> None:
    selection = select(folder(tmp_path, {"a.py": UNDECLARED, "b.py": UNDECLARED}), target(catalog))
    assert selection.graded is None and "2 files define `Node`" in selection.problem
    assert "a.py (defines Node)" in selection.problem
    declared = select(folder(tmp_path / "2", {"a.py": ENGINE, "b.py": ENGINE}), target(catalog))
    assert declared.graded is None and "2 files say they answer it" in declared.problem
    assert "a.py (says it answers node-mul; defines Node)" in declared.problem


def test_without_an_exercise_only_a_declaration_can_choose(tmp_path: Path) -> None:
    files = folder(tmp_path, {"engine.py": ENGINE, "helpers.py": HELPER})
    assert (chosen := select(files, Target()).graded) is not None and chosen.name == "engine.py"
    selection = select(folder(tmp_path / "2", {"a.py": UNDECLARED, "b.py": HELPER}), Target())
    assert selection.graded is None and "none of them says which exercise it answers" in selection.problem


def test_siblings_with_one_name_twice_are_refused(tmp_path: Path, catalog: Catalog) -> None:
    files = [SubmittedFile("engine.py", tmp_path / "x" / "engine.py"),
             SubmittedFile("helpers.py", tmp_path / "x" / "helpers.py"),
             SubmittedFile("helpers.py", tmp_path / "x" / "helpers-1.py")]
    for file in files:
        file.path.parent.mkdir(exist_ok=True)
        file.path.write_text(ENGINE if file.name == "engine.py" else HELPER)
    selection = select(files, target(catalog))
    assert selection.graded is None and "named helpers.py" in selection.problem
    with pytest.raises(GraderError, match=r"named helpers\.py"):
        load_selected(selection)


def test_grade_takes_a_folder_and_the_report_names_the_file(tmp_path: Path, capsys: Capture) -> None:
    student = tmp_path / "student"
    student.mkdir()
    shutil.copy(ROOT / "submissions" / "node-mul" / "swapped_slopes.py", student / "engine.py")
    (student / "helpers.py").write_text(HELPER)
    assert main([str(student), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["submission"]["path"] == str(student / "engine.py") and report["score"] == 1
    assert report["notes"][0].startswith("Graded engine.py (its '# exercise:' line names node-mul)")
    (student / "other.py").write_text(UNDECLARED)
    (student / "engine.py").write_text(UNDECLARED)
    assert main([str(student), "--exercise", "node-mul"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2 files define `Node`" in err and "helpers.py (defines check_close)" in err


def test_a_sibling_module_is_importable(tmp_path: Path, capsys: Capture) -> None:
    student = tmp_path / "student"
    student.mkdir()
    engine = ENGINE.replace("import math\n", "import math\nfrom slopes import product_slopes\n").replace(
        "(other.value, self.value))", "product_slopes(self.value, other.value))")
    (student / "engine.py").write_text(engine)
    (student / "slopes.py").write_text("def product_slopes(a, b):\n    return (b, a)\n")
    assert main([str(student), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == 10
