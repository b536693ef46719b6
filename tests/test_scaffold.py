"""`grade new` writes an exercise to fill in; validate lists what is left; filled in, it validates."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cli import main
from grader.course.scaffold import MARK, todos
from grader.course.validate import validate_exercise
from grader.judge.catalog import Catalog
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent


def _unmark(folder: Path) -> None:
    """What an author does last: delete every line that still carries the mark."""
    for path in folder.rglob("*"):
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            path.write_text("".join(line for line in lines if MARK not in line), encoding="utf-8")


@pytest.mark.slow
def test_a_new_scalar_exercise_says_what_is_left_and_validates_once_filled_in(
        tmp_path: Path, sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    course = tmp_path / "course"
    assert main(["new", "node-times", "--exercises", str(course)]) == 0
    assert "grade validate --exercises" in capsys.readouterr().out
    folder = course / "node-times"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.*")) == [
        "exercise.yaml", "mutants/example.py", "solution.py", "starter.py", "variants/example.py"]
    # a process of its own: validate's mutant cache is per process, and the files change below
    run = subprocess.run([sys.executable, "-m", "grader", "validate", "--seeds", "1", "--exercises", str(course),
                          "node-times"], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 1, run.stderr
    left = [line.strip() for line in run.stdout.splitlines() if line.strip().startswith("✗")]
    assert sum(text.startswith("✗ still to do: ") for text in left) == 6
    assert any(f"{folder / 'mutants' / 'example.py'}, line 5: put one known mistake" in t for t in left)
    assert any("1 mutants; the catalogue asks for at least 3" in t for t in left)

    # the author fills in the TODOs: three mutants, each one mistake of the solution
    solution = (folder / "solution.py").read_text(encoding="utf-8")
    rule = "            self.grad += other.value * out.grad\n            other.grad += self.value * out.grad\n"
    mistakes = {
        "example": ("swapped-locals", "each operand's gradient uses the other operand's value.",
                    rule.replace("other.value * out", "SELF").replace("self.value * out", "other.value * out")
                    .replace("SELF", "self.value * out")),
        "no_upstream": ("missing-upstream-factor", "multiply the local slope by out.grad.",
                        rule.replace(" * out.grad", "")),
        "overwrite": ("overwrite-not-accumulate", "add with +=: a node used twice gets both.",
                      rule.replace("+=", "=")),
    }
    for name, (mistake, hint, wrong) in mistakes.items():
        text = solution.replace(rule, wrong).replace('"""Solution of node-times',
                                                     f'"""Mutant.\n\nmistake: {mistake}\nhint: {hint}\n\nIt was:', 1)
        (folder / "mutants" / f"{name}.py").write_text(text, encoding="utf-8")
    _unmark(folder)
    filled = Catalog(course).load("node-times")
    assert todos(filled) == []
    validation = validate_exercise(filled, sandbox, seeds=(0, 1))
    assert validation.ok, [f.text for f in validation.findings if not f.ok]


def test_a_new_torch_exercise_loads_and_lists_its_marks(tmp_path: Path) -> None:
    assert main(["new", "cube-grad", "--engine", "torch", "--exercises", str(tmp_path)]) == 0
    exercise = Catalog(tmp_path).load("cube-grad")
    assert exercise.engine == "torch" and dict(exercise.defines) == {"cube": "function"}
    assert [t.split(", line")[0] for t in todos(exercise)] == [
        str(tmp_path / "cube-grad" / f) for f in
        ("exercise.yaml", "exercise.yaml", "starter.py", "solution.py", "mutants/example.py",
         "variants/example.py")]


def test_new_like_an_existing_exercise_copies_it_renamed_with_marks(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "courses" / "micrograd" / "value-abs", tmp_path / "value-abs")
    assert main(["new", "value-div", "--like", "value-abs", "--exercises", str(tmp_path)]) == 0
    exercise = Catalog(tmp_path).load("value-div")
    # every mutant of the original, not the first alone
    assert exercise.contract.class_name == "Value" and len(exercise.mutants) == 3
    assert sorted(m.path.name for m in exercise.mutants) == ["no_chain_factor.py", "no_sign.py", "overwrite.py"]
    assert [v.name for v in exercise.variants] == ["kahn.py", "stack_sort.py"]  # and every variant
    assert exercise.starter.read_text(encoding="utf-8").startswith("# exercise: value-div\n")
    assert len(todos(exercise)) == 8  # spec, starter, solution, three mutants, two variants


@pytest.mark.parametrize(("argv", "says"), [
    (["new", "Node_Div"], "cannot be an exercise id"),
    (["new", "value-mul"], "exists already"),
    (["new", "x", "--like", "nope"], "unknown exercise 'nope'"),
])
def test_new_refuses_what_it_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                          says: str) -> None:
    (tmp_path / "value-mul").mkdir()
    assert main([*argv, "--exercises", str(tmp_path)]) == 2
    assert says in capsys.readouterr().err
