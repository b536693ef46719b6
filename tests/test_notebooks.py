"""Notebooks: read with nbformat, magics neutralised, errors mapped to cells, assignments, released packs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import nbformat
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.cli import main
from grader.judge.catalog import Catalog
from grader.outputs.render_json import report_schema
from grader.run.read.load import load_submission
from grader.run.read.notebook import NotebookError, neutralise

ROOT = Path(__file__).resolve().parent.parent
Capture = pytest.CaptureFixture[str]


def write_notebook(path: Path, *cells: str, meta: dict[str, str] | None = None, markdown_first: bool = True) -> Path:
    nb = nbformat.v4.new_notebook()
    if markdown_first:
        nb.cells.append(nbformat.v4.new_markdown_cell("# Homework"))
    nb.cells += [nbformat.v4.new_code_cell(source) for source in cells]
    if meta:
        nb.metadata["autograd_grader"] = meta
    path.write_text(nbformat.writes(nb))
    return path


@pytest.mark.parametrize(
    ("cell", "python", "changed"),
    [
        ("%matplotlib inline\nimport math", "pass\nimport math", [1]),
        ("!pip install torch\nx = 1", "pass\nx = 1", [1]),
        ("%%time\nx = 1\ny = 2", "\nx = 1\ny = 2", [1]),
        ("%%bash\nrm -rf /\necho hi", "\n\n", [1]),
        ("for i in range(2):\n    %time y = i\n", "for i in range(2):\n    y = i\n", [2]),
        ("files = !ls", "files = None", [1]),
        ("math.sqrt?", "pass", [1]),
        ("x = 10 % 3\ns = '!not a shell'", "x = 10 % 3\ns = '!not a shell'", []),
        ("s = '''\n%not a magic\n'''\n!echo hi", "s = '''\n%not a magic\n'''\npass", [4]),
        ("def f(:\n    pass", "def f(:\n    pass", []),  # a real syntax error stays, to be reported
        # the notebook's own checks (grader.course.notebook_check) do nothing when it is graded
        ("from grader import check\ncheck('node-mul')", "check = lambda *args, **kwargs: None\ncheck('node-mul')",
         [1]),
        ("x = 1; from grader import check as c  # mine", "x = 1; c = lambda *args, **kwargs: None  # mine", [1]),
        ('s = """\nfrom grader import check\n"""', 's = """\nfrom grader import check\n"""', []),
    ],
)
def test_magics_and_shell_lines_are_neutralised(cell: str, python: str, changed: list[int]) -> None:
    out, changes = neutralise(cell)
    assert out == python
    assert [line for line, _, _ in changes] == changed


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("%!?=x ()\n'\"#:\t")), max_size=40))
def test_neutralising_never_fails_and_keeps_the_line_count(cell: str) -> None:
    out, _ = neutralise(cell)
    assert out.count("\n") == cell.count("\n")  # line numbers in errors stay right


def test_cells_become_sources_with_their_notebook_numbers(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "hw.ipynb", "x = 1", "%matplotlib inline\ny = 2", meta={"exercise": "node-mul"})
    submission = load_submission(path)
    assert submission.kind == "notebook" and submission.declared_exercise == "node-mul"
    assert [(c.label, c.source) for c in submission.cells] == [("cell 2", "x = 1"), ("cell 3", "pass\ny = 2")]
    assert submission.notes == ("Cell 3, line 1: `%matplotlib inline` did not run (magics do not run when grading).",)


def test_stored_outputs_are_ignored(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "hw.ipynb", "x = 1")
    data = json.loads(path.read_text())
    data["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "forged: 10/10\n"}]
    path.write_text(json.dumps(data))
    assert [c.source for c in load_submission(path).cells] == ["x = 1"]


def _raw_notebook(minor: int, *cells: dict[str, object]) -> dict[str, object]:
    return {"nbformat": 4, "nbformat_minor": minor, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, **cell} for cell in cells]}


def test_a_4_4_notebook_whose_cells_carry_ids_is_read_as_4_5_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "hw.ipynb"
    path.write_text(json.dumps(_raw_notebook(4, {"id": "a1", "source": "x = 1"}, {"id": "b2", "source": "y = 2"})))
    submission = load_submission(path)
    assert [c.source for c in submission.cells] == ["x = 1", "y = 2"]
    assert submission.notes == ("The notebook says nbformat 4.4 but its cells carry ids, which 4.5 added: it was read "
                                "as 4.5, as Jupyter does.",)


def test_missing_and_duplicate_cell_ids_are_repaired_the_same_way_every_time(tmp_path: Path) -> None:
    path = tmp_path / "hw.ipynb"
    path.write_text(json.dumps(_raw_notebook(5, {"id": "same", "source": "x = 1"}, {"id": "same", "source": "y = 2"},
                                             {"source": "z = 3"})))
    first, again = load_submission(path), load_submission(path)
    assert [c.source for c in first.cells] == ["x = 1", "y = 2", "z = 3"]
    assert first.notes == again.notes == (
        "Cells 2, 3 had no id, or one another cell has: the grader gave each an id of its own, as Jupyter does.",)


def test_a_notebook_off_the_schema_but_readable_is_graded_with_a_note(tmp_path: Path) -> None:
    data = _raw_notebook(4, {"source": ["x = 1\n", "y = x + 1"]})
    del data["cells"][0]["outputs"]  # type: ignore[index]  # a code cell must have outputs; some tools drop them
    path = tmp_path / "hw.ipynb"
    path.write_text(json.dumps(data))
    submission = load_submission(path)
    assert [c.source for c in submission.cells] == ["x = 1\ny = x + 1"]
    assert len(submission.notes) == 1 and "does not follow nbformat 4's schema" in submission.notes[0] \
        and "read anyway" in submission.notes[0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not a notebook: not valid JSON (line 1, column 2"),
        (b"[1, 2]", "not a notebook: the JSON has no 'nbformat' field"),
        (b'{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}', "nbformat 3 notebooks are not"),
        (b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}', "not a valid nbformat 4 notebook"),
        (b"\xff\xfe\x00", "not a notebook: not UTF-8 text"),
    ],
)
def test_broken_notebooks_are_one_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_bytes(content)
    with pytest.raises(NotebookError, match="broken.ipynb: " + message.replace("(", r"\(").replace(")", r"\)")):
        load_submission(path)


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A catalog with two exercises and an assignment that combines them."""
    root = tmp_path / "exercises"
    for exercise_id in ("first-gradient", "tiny-engine"):
        shutil.copytree(ROOT / "exercises" / exercise_id, root / exercise_id)
    (root / "assignments").mkdir()
    (root / "assignments" / "lesson.yaml").write_text(
        "id: lesson\ntitle: The lesson\nsummary: Both at once.\nexercises: [first-gradient, tiny-engine]\n")
    return root


@pytest.mark.slow
def test_one_notebook_answers_an_assignment_from_one_run(course: Path, tmp_path: Path, capsys: Capture) -> None:
    first = (course / "first-gradient" / "solution.py").read_text()
    engine = (ROOT / "submissions" / "tiny-engine" / "correct_micrograd.py").read_text()
    path = write_notebook(tmp_path / "lesson.ipynb", "print('the notebook ran')", first, engine,
                          meta={"assignment": "lesson"})
    assert main([str(path), "--exercises", str(course), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(e["id"], e["score"], e["max_score"]) for e in report["exercises"]] == [
        ("first-gradient", 10, 10), ("tiny-engine", 20, 20)]
    assert report["output"].count("the notebook ran") == 1  # one run of the notebook for both exercises


@pytest.mark.slow
def test_in_an_assignment_a_forbidden_import_counts_only_inside_its_exercise(course: Path, tmp_path: Path,
                                                                             capsys: Capture) -> None:
    first = (course / "first-gradient" / "solution.py").read_text()  # imports torch: allowed for this one
    engine = (ROOT / "submissions" / "tiny-engine" / "correct_micrograd.py").read_text().replace(
        "        self.value = float(value)", "        self.value = float(torch.tensor(value))")
    path = write_notebook(tmp_path / "lesson.ipynb", first, engine)
    assert main([str(path), "--exercises", str(course), "--assignment", "lesson", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    scores = {e["id"]: e["score"] for e in report["exercises"]}
    assert scores["first-gradient"] == 10  # its own run has torch
    # tiny-engine's run has none: the Node that reaches for it fails where it does, and says so
    engine = next(e for e in report["exercises"] if e["id"] == "tiny-engine")
    assert scores["tiny-engine"] == 0 and all(c["status"] == "error" for c in engine["checks"])
    assert "torch is not available in exercise tiny-engine" in engine["checks"][0]["problem"]
    assert "cell 3, line 10" in engine["checks"][0]["problem"]


def test_an_assignment_that_needs_one_name_twice_is_refused(course: Path) -> None:
    shutil.copytree(ROOT / "exercises" / "node-mul", course / "node-mul")
    (course / "assignments" / "clash.yaml").write_text("id: clash\ntitle: Clash\nexercises: [tiny-engine, node-mul]\n")
    with pytest.raises(Exception, match="tiny-engine and node-mul both need `Node`"):
        Catalog(course).load_assignment("clash")


@pytest.mark.slow
def test_release_writes_starters_and_a_pack_without_answers(course: Path, tmp_path: Path, capsys: Capture) -> None:
    out = tmp_path / "pack"
    assert main(["release", "--exercises", str(course), "--out", str(out)]) == 0
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"first-gradient.py", "first-gradient.ipynb", "tiny-engine.ipynb", "lesson.ipynb",
            "exercises/first-gradient/exercise.yaml", "exercises/first-gradient/expected.json",
            "exercises/assignments/lesson.yaml"} <= files
    assert not [f for f in files if "solution" in f or "mutant" in f]
    spec = (out / "exercises" / "first-gradient" / "exercise.yaml").read_text()
    assert "visibility: hidden" not in spec and "nearly saturated" not in spec
    for notebook in ("first-gradient.ipynb", "tiny-engine.ipynb", "lesson.ipynb"):
        nbformat.validate(nbformat.read(out / notebook, as_version=4))  # the validator is happy

    released = nbformat.read(out / "first-gradient.ipynb", as_version=4)
    capsys.readouterr()
    assert main([str(out / "first-gradient.ipynb"), "--exercises", str(out / "exercises")]) == 1  # the starter
    released.cells[1].source = (course / "first-gradient" / "solution.py").read_text()
    filled = tmp_path / "filled.ipynb"
    nbformat.write(released, filled)
    for catalog in (course, out / "exercises"):  # the course's full exercises, and the students' pack
        capsys.readouterr()
        assert main([str(filled), "--exercises", str(catalog), "--color", "never"]) == 0, capsys.readouterr().out
    assert main([str(filled), "--exercises", str(out / "exercises"), "--seed", "5"]) == 2
    assert "released with expected values for --seed 0 only" in capsys.readouterr().err


@pytest.mark.slow
def test_a_released_engine_exercise_grades_in_the_pack_alone(course: Path, tmp_path: Path, capsys: Capture) -> None:
    # No solution and no stored expected values travel: the reference engine is this exercise's oracle (the
    # mutants' values at the pack's seed do, for naming: grader.judge.diagnose.released_mistakes).
    out = tmp_path / "pack"
    assert main(["release", "tiny-engine", "--exercises", str(course), "--out", str(out)]) == 0
    pack = out / "exercises"
    assert sorted(p.name for p in (pack / "tiny-engine").iterdir()) == ["exercise.yaml", "mistakes.json", "starter.py"]
    public = sum(p["points"] for p in yaml.safe_load((pack / "tiny-engine" / "exercise.yaml").read_text())["probes"])
    probes = yaml.safe_load((course / "tiny-engine" / "exercise.yaml").read_text())["probes"]
    hidden = sum(p["points"] for p in probes if p.get("visibility") == "hidden")
    packed = yaml.safe_load((pack / "tiny-engine" / "exercise.yaml").read_text())
    assert hidden > 0 and packed["hidden_points"] == hidden
    capsys.readouterr()
    assert main([str(out / "tiny-engine.py"), "--exercises", str(pack), "--color", "never"]) == 1  # the starter
    for seed in ("0", "7"):  # any seed: no expected values are stored for one seed only
        assert main([str(course / "tiny-engine" / "solution.py"), "--exercises", str(pack), "--seed", seed,
                     "--color", "never"]) == 0
        # the score says what it covers: full marks on the public checks are not full marks
        assert (f"Score: {public:g}/{public:g} on the public checks; {hidden:g} more point"
                f"{'' if hidden == 1 else 's'} {'is' if hidden == 1 else 'are'} in hidden checks run after you "
                f"submit (") in capsys.readouterr().out
    assert main([str(course / "tiny-engine" / "solution.py"), "--exercises", str(pack), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["version"], data["score"], data["public_score"], data["hidden_points"]) == ("1.9", public, public,
                                                                                              hidden)
    assert data["exercises"][0]["hidden_points"] == hidden
    jsonschema.validate(data, report_schema())
    # graded from the course, the hidden checks run: nothing is left out
    assert main([str(course / "tiny-engine" / "solution.py"), "--exercises", str(course), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["score"], data["public_score"], data["hidden_points"]) == (public + hidden, public, 0)
    # no mutants in a pack, yet a slip in one rule is still named
    slip = ROOT / "submissions" / "mistakes" / "tiny-engine__division_denominator_sign.py"
    assert main([str(slip), "--exercises", str(pack), "--color", "never"]) == 1
    assert "d(x / y)/dy is -x / y**2" in capsys.readouterr().out


@pytest.mark.slow
def test_a_released_assignment_notebook_filled_in_scores_full_marks(course: Path, tmp_path: Path,
                                                                    capsys: Capture) -> None:
    out = tmp_path / "pack"
    assert main(["release", "--assignment", "lesson", "--exercises", str(course), "--out", str(out)]) == 0
    notebook = nbformat.read(out / "lesson.ipynb", as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    code[0].source = (course / "first-gradient" / "solution.py").read_text()
    code[1].source = (course / "tiny-engine" / "solution.py").read_text()
    nbformat.write(notebook, out / "lesson.ipynb")
    capsys.readouterr()
    assert main([str(out / "lesson.ipynb"), "--exercises", str(course), "--color", "never"]) == 0
    assert "Score: 30/30" in capsys.readouterr().out


def test_no_starter_writes_its_own_advice() -> None:
    # `grade release` writes the advice under the name it releases the file as; a starter's own would go stale
    written = [p for p in (ROOT / "exercises").glob("*/starter.py") if re.search(r"^\s*grade \S", p.read_text(), re.M)]
    assert written == []


@pytest.mark.slow
def test_every_released_starter_advice_works_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: Capture) -> None:
    out = tmp_path / "pack"
    assert main(["release", "--exercises", str(ROOT / "exercises"), "--out", str(out)]) == 0
    catalog = Catalog(ROOT / "exercises")
    advised: dict[str, str] = {}
    for exercise_id in catalog.ids():
        py = (out / f"{exercise_id}.py").read_text()
        cells = nbformat.read(out / f"{exercise_id}.ipynb", as_version=4).cells
        notebook = "\n".join(cell.source for cell in cells)
        assert re.findall(r"grade (\S+?)`?$", py, re.M) == [f"{exercise_id}.py"], exercise_id
        assert re.findall(r"`grade (\S+?)`", notebook) == [f"{exercise_id}.ipynb"], exercise_id
        assert load_submission(out / f"{exercise_id}.py").declared_exercise == exercise_id
        advised[exercise_id] = py
    compile(advised["node-mul"], "node-mul.py", "exec")  # still Python, the docstring extended
    for assignment_id in catalog.assignment_ids():
        intro = nbformat.read(out / f"{assignment_id}.ipynb", as_version=4).cells[0].source
        assert re.findall(r"`grade (\S+?)`", intro) == [f"{assignment_id}.ipynb"]
    monkeypatch.chdir(out)  # where a student runs it: the pack's exercises/ is found there
    for command in ("grade node-mul.py", "grade node-mul.ipynb"):
        capsys.readouterr()
        assert main(command.split()[1:] + ["--color", "never"]) == 1  # graded (the starter fails), no usage error
        assert "Exercise node-mul" in capsys.readouterr().out


def test_advice_goes_into_the_docstring_or_under_the_header() -> None:
    from grader.course.pack.release import with_advice

    assert with_advice('# exercise: x\n"""Do it.\n"""\nx = 1\n', "x.py") == \
        '# exercise: x\n"""Do it.\n\nCheck your work with:\n\n    grade x.py\n"""\nx = 1\n'
    assert with_advice("# exercise: x\nx = 1\n", "x.py") == \
        "# exercise: x\n# Check your work with:\n#\n#     grade x.py\nx = 1\n"
