"""minitorch's module 1 as a library course (examples/courses/minitorch-module1): a Scalar is read as the graph of
functions that made it, the course's reference computes every function a check does not grade, and module 0's
operators are the course's own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.core.values import Number, Traced, TracedNode
from grader.judge.catalog import Catalog
from grader.judge.library.standin import evaluate
from grader.judge.session import grade
from grader.run.read.given import SEAM
from grader.run.read.package import read_package

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "examples" / "courses" / "minitorch-module1"
COURSE = Catalog(FOLDER)
LIBRARY = COURSE.library()
FUNCTIONS = "minitorch/scalar_functions.py"
OPERATORS = "minitorch/operators.py"


def _repository(tmp_path: Path, changes: dict[str, tuple[str, str]] | None = None) -> Path:
    """The reference as a student's clone (their tests and project/ beside it), with `changes[file] = (old, new)`."""
    repo = tmp_path / "repo"
    shutil.copytree(FOLDER / "reference", repo)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_scalar.py").write_text("raise SystemExit('never read')\n")
    (repo / "project").mkdir()
    (repo / "project" / "run_scalar.py").write_text("import minitorch\n")
    for rel, (old, new) in (changes or {}).items():
        text = (repo / rel).read_text()
        assert old in text, old
        (repo / rel).write_text(text.replace(old, new))
    return repo


def _statuses(report: object) -> dict[tuple[str, str], str]:
    return {(e.id, c.name): c.status for e in report.exercises for c in e.checks}  # type: ignore[attr-defined]


def test_a_broken_neg_costs_only_negs_checks(tmp_path: Path) -> None:
    """x - y applies Neg: the reference computes it in the scalar exercise, so only Neg's own check fails."""
    repo = _repository(tmp_path, {FUNCTIONS: ("        return float(operators.neg(a))",
                                              "        return float(a)")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("functions-forward"), COURSE.load("scalar")],
                   seed=1, isolation="none")
    failed = {key for key, status in _statuses(report).items() if status != "passed"}
    assert failed == {("functions-forward", "neg")}


def test_a_broken_operator_of_module_0_costs_nothing_and_the_students_own_helpers_stay(tmp_path: Path) -> None:
    """The student's operators.mul is wrong and their Mul uses a helper of their own in operators.py: the course's
    mul stands in, the helper stays theirs, and the report says so."""
    repo = _repository(tmp_path, {
        OPERATORS: ("def mul(x: float, y: float) -> float:\n    return x * y",
                    "def mul(x: float, y: float) -> float:\n    return x + y\n\n\n"
                    "def times(x, y):\n    return mul(x, y)"),
        FUNCTIONS: ("        return float(operators.mul(a, b))", "        return float(operators.times(a, b))"),
    })
    assert LIBRARY is not None
    submission = read_package(repo, LIBRARY)
    operators = dict((cell.label, cell.source) for cell in submission.package)[OPERATORS]
    assert "def times(x, y)" in operators.partition(SEAM)[0] and SEAM in operators
    assert any(note.startswith(f"{OPERATORS}: the course's own functions (mul,") for note in submission.notes)
    report = grade(submission, [COURSE.load("functions-forward")], seed=0, isolation="none")
    assert report.exercises[0].score == report.exercises[0].max_score


def test_the_given_file_replaces_one_python_cannot_read_and_its_digest_is_the_students(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    assert LIBRARY is not None
    before = read_package(repo, LIBRARY)
    assert not before.notes  # the student's operators are the course's own: nothing to say
    (repo / OPERATORS).write_text("def mul(x, y:\n")
    after = read_package(repo, LIBRARY)
    given = (FOLDER / "starter" / OPERATORS).read_text()
    assert dict((cell.label, cell.source) for cell in after.package)[OPERATORS] == given
    assert after.sha256 != before.sha256 and "cannot be read by Python" in after.notes[0]


def test_a_scalar_is_read_as_the_functions_that_made_it(tmp_path: Path) -> None:
    """In the child, a Scalar's history (a function's class, not an instance) gives the graph: the constant 2.0
    is a leaf, Add and Neg are named by their classes."""
    repo = _repository(tmp_path, {FUNCTIONS: ("        return float(a + b)", "        return float(a + b + 100)")})
    assert LIBRARY is not None
    exercise = COURSE.load("scalar")
    report = grade(read_package(repo, LIBRARY), [exercise], seed=0, isolation="none")
    assert report.exercises[0].score == report.exercises[0].max_score  # the reference's Add stood in


def test_the_stand_in_calls_a_function_class_with_a_context() -> None:
    from grader.judge.library.standin import reference_standins

    standins = reference_standins(COURSE.load("scalar"))
    assert standins.compute == "forward" and standins.context is not None
    graph = Traced((TracedNode(None, (), (), Number(2.0)), TracedNode(None, (), (), Number(3.0)),
                    TracedNode("Neg", (), (1,), Number(99.0)), TracedNode("Add", (), (0, 2), Number(99.0))))
    assert evaluate(graph, standins, frozenset({"Scalar"})) == Number(-1.0)
    assert evaluate(graph, standins, frozenset({"Add"})) == Number(99.0)  # the graded function's own value


@pytest.mark.slow
@pytest.mark.parametrize("course", ["needle-hw1", "minitorch-module1"])
def test_the_example_library_courses_are_sound(course: str, capsys: pytest.CaptureFixture[str]) -> None:
    """grade validate at one seed: the reference full, the starter not, every known mistake named as itself."""
    from grader.cli import main

    code = main(["validate", "--seeds", "1", "--variant-seeds", "3", "--device", "cpu", "--exercises",
                 str(FOLDER.parent / course)])
    out = capsys.readouterr().out
    assert code == 0 and "exercises sound" in out and " of " in out, out
