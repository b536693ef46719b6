"""check("node-mul") in a real Jupyter kernel (nbclient): the sandbox grades what ran, the report shows in the cell."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from grader.cli import main
from grader.course.notebook_check import check, executed_cells, submission_of

ROOT = Path(__file__).resolve().parent.parent
MUTANT = ROOT / "exercises" / "node-mul" / "mutants" / "swapped_locals.py"
Capture = pytest.CaptureFixture[str]


def run_kernel(notebook: Any, folder: Path) -> None:
    from nbclient import NotebookClient

    client = NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.execute()


def outputs(cell: Any, kind: str) -> list[str]:
    return [o["data"][kind] for o in cell.outputs if kind in o.get("data", {})]


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    out = tmp_path / "pack"
    assert main(["release", "node-mul", "--assignment", "autograd", "--exercises", str(ROOT / "exercises"),
                 "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_check_in_a_notebook_grades_what_ran_and_scores_as_grade_does(pack: Path, capsys: Capture) -> None:
    notebook = nbformat.read(pack / "node-mul.ipynb", as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    # what ran counts each run in the kernel: check() must not run the student's code there again
    code[0].source = "RUNS = globals().get('RUNS', 0) + 1\n" + MUTANT.read_text()
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in (
        "from grader import check\nchecked = check('node-mul')\nchecked",
        "print(RUNS)",
        "check('node-mull')",
        # an id is data: a path to a spec, even the pack's own, is an unknown id (tests/test_names_are_data.py)
        "check('../exercises/node-mul')",
    )]
    run_kernel(notebook, pack)
    shown, runs, typo, climbs = notebook.cells[-4:]
    html, = outputs(shown, "text/html")
    # the failed checks expanded, named
    assert "Score: " in html and '<table class="ag-table">' in html and "swapped" in html
    assert html.count('<tr class="ag-detail">') == html.count(">FAIL</td>") > 0
    text, = outputs(shown, "text/plain")
    assert "Exercise node-mul" in text and "on the public checks; 1 more point is in hidden checks" in text
    assert runs.outputs[0]["text"] == "1\n"
    score = re.search(r"Score: ([\d.]+)/9 ", text)
    assert score is not None and float(score[1]) < 9
    assert "check(): unknown exercise 'node-mull'" in outputs(typo, "text/plain")[0]
    assert "check(): unknown exercise '../exercises/node-mul': the exercises folder" in outputs(climbs, "text/plain")[0]
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not any(o.output_type == "error" for cell in code for o in cell.outputs)

    # the same notebook graded by grade scores the same, its check() calls neutralised
    nbformat.write(notebook, pack / "ran.ipynb")
    capsys.readouterr()
    assert main([str(pack / "ran.ipynb"), "--exercises", str(pack / "exercises"), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["score"] == float(score[1]) and report["problems"] == []
    assert any("`from grader import check` did not run (checks in the notebook do not run when it is graded)" in n
               for n in report["notes"])


@pytest.mark.slow
def test_check_with_no_id_checks_the_notebooks_assignment(pack: Path) -> None:
    notebook = nbformat.read(pack / "autograd.ipynb", as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("from grader import check\ncheck()"))
    (pack / "node-mul.ipynb").unlink()  # autograd.ipynb is then the one notebook here that names what it answers
    run_kernel(notebook, pack)
    text, = outputs(notebook.cells[-1], "text/plain")
    members = [line.split()[1].rstrip(":") for line in text.splitlines() if line.startswith("Exercise ")]
    assert members == yaml.safe_load((pack / "exercises" / "assignments" / "autograd.yaml").read_text())["exercises"]
    assert "Not implemented yet" in text and "the same error in" in text  # the untouched starters, each said once


@pytest.mark.slow
def test_check_says_when_it_cannot_tell_its_notebook_and_how_to_name_it(pack: Path) -> None:
    """Two notebooks in one folder holding the same check cell: neither can be told from what ran."""
    notebook = nbformat.read(pack / "autograd.ipynb", as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("from grader import check\ncheck()"))
    for name in ("a.ipynb", "b.ipynb"):
        nbformat.write(notebook, pack / name)
    (pack / "autograd.ipynb").unlink()
    (pack / "node-mul.ipynb").unlink()
    notebook.cells.append(nbformat.v4.new_code_cell("check(notebook='b.ipynb')"))
    notebook.cells.append(nbformat.v4.new_code_cell("check(notebook='c.ipynb')"))
    run_kernel(notebook, pack)
    unknown, named, missing = (outputs(cell, "text/plain")[0] for cell in notebook.cells[-3:])
    assert "check() could not tell which notebook this is: a.ipynb and b.ipynb in this folder all hold the cells " \
           "this kernel ran. Name it, as in check(notebook=\"a.ipynb\")" in unknown
    members = yaml.safe_load((pack / "exercises" / "assignments" / "autograd.yaml").read_text())["exercises"]
    assert all(f"Exercise {member}" in named for member in members)  # the named notebook's assignment, graded
    assert "check(notebook='c.ipynb'): no such notebook here" in missing


def test_check_outside_a_notebook_says_where_it_works() -> None:
    checked = check("node-mul")
    assert checked.report is None and "call it in a Jupyter notebook cell" in checked.problem
    assert "check(): " in repr(checked) and "check():" in checked._repr_html_()


def test_what_ran_is_a_notebook_of_cells_labelled_by_execution_count() -> None:
    cells = executed_cells(["", "x = 1", "  ", "%time y = x\n!ls", "from grader import check\ncheck()"])
    assert [count for count, _ in cells] == [1, 3, 4]
    submission = submission_of(cells, None)
    assert [c.label for c in submission.cells] == ["cell 1", "cell 3", "cell 4"]
    assert submission.cells[1].source == "y = x\npass"
    assert submission.cells[2].source.startswith("check = lambda *args, **kwargs: None")
    assert not any("from grader import check" in note for note in submission.notes)  # this very call: not news
    assert any("`!ls` did not run" in note for note in submission.notes)


def test_from_grader_import_check_is_the_function_after_grading_too() -> None:
    import grader.judge.check  # the scoring module of that name, as grading imports it
    from grader import check as again
    from grader.judge.check import check_exercise

    assert again is check and callable(check_exercise) and grader.check is check
