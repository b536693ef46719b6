"""The torch engine: the solution as oracle, tensor inputs, devices, expected errors, source rules, hints."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
import torch

from grader.core.exercise import Exercise, SourceRules
from grader.core.values import Array, ErrorInfo
from grader.judge.diagnose.hints import hint_for
from grader.judge.grading import grade_submission
from grader.judge.oracle import expected_values
from grader.judge.report import ExerciseResult
from grader.judge.rules import check_source, import_notes
from grader.judge.spec import load_exercise
from grader.run.inputs import TensorInput, draw_inputs
from grader.run.policy import engine_policy
from grader.run.read.load import SourceCell, load_submission
from grader.run.sandbox import Sandbox

SPEC = """\
id: demo
title: Demo
points: 6
engine: torch
defines: {square_grad: function, backward_twice: function}
source: {require_calls: [backward], forbid_imports: [numpy]}
tolerance: {rtol: 1.0e-5, atol: 1.0e-8}
probes:
  - name: gradient of a sum of squares
    points: 2
    devices: [cpu, cuda]
    inputs: {t: {tensor: [2, 3]}, c: scalar}
    code: g = square_grad(t, c)
    observe: [g, {shape: "list(g.shape)"}]
    output: (c * t * t).sum()
    gradients: {g: t}
  - name: a freed graph cannot be walked twice
    points: 2
    inputs: {w: scalar}
    code: backward_twice(w, retain=False)
    raises: {type: RuntimeError, contains: "Trying to backward through the graph a second time"}
  - name: with retain_graph the bucket fills twice
    points: 2
    inputs: {w: scalar}
    code: g = backward_twice(w, retain=True)
    observe: [g]
"""

SOLUTION = """\
import torch


def square_grad(t, c):
    t = t.detach().requires_grad_()
    (c * t * t).sum().backward()
    return t.grad


def backward_twice(w, retain):
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    out = w * w
    out.backward(retain_graph=retain)
    out.backward()
    return w.grad.item()
"""


@pytest.fixture(scope="module")
def exercise(tmp_path_factory: pytest.TempPathFactory) -> Exercise:
    root = tmp_path_factory.mktemp("exercises") / "demo"
    (root / "mutants").mkdir(parents=True)
    (root / "exercise.yaml").write_text(SPEC)
    (root / "solution.py").write_text(SOLUTION)
    (root / "starter.py").write_text("def square_grad(t, c):\n    raise NotImplementedError\n")
    return load_exercise(root / "exercise.yaml")


def grade_source(sandbox: Sandbox, exercise: Exercise, tmp_path: Path, source: str, **kwargs: object) -> ExerciseResult:
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(source))
    graded = grade_submission(sandbox, load_submission(path), [exercise], seed=0, **kwargs)  # type: ignore[arg-type]
    return dataclasses.replace(graded.exercises[0], problems=graded.exercises[0].problems + graded.problems)


def statuses(result: ExerciseResult) -> dict[str, tuple[str, float, float]]:
    return {c.name: (c.status, c.score, c.max_score) for c in result.checks}


def test_tensor_inputs_follow_the_spec(exercise: Exercise) -> None:
    t = draw_inputs(exercise, 0)[0]["t"]
    assert isinstance(t, TensorInput) and t.shape == (2, 3) and len(t.data) == 6 and not t.requires_grad
    assert all(0.3 <= abs(v) <= 3 for v in t.data)


def test_the_solution_is_the_oracle_and_central_differences_confirm_it(exercise: Exercise) -> None:
    inputs = draw_inputs(exercise, 0)
    expected = expected_values(exercise, inputs)
    first = expected[0]
    assert first.disagreements == ()
    t, c = inputs[0]["t"], inputs[0]["c"]
    assert isinstance(t, TensorInput) and isinstance(c, float)
    assert first.observations["g"] == Array((2, 3), tuple(2 * c * v for v in t.data), "float64", "cpu")  # type: ignore[index]
    assert isinstance(expected[1].observations, ErrorInfo) and expected[1].disagreements == ()


def test_a_wrong_gradient_declaration_is_caught_by_central_differences(exercise: Exercise, tmp_path: Path) -> None:
    probe = dataclasses.replace(exercise.probes[0], output="(c * t * t * t).sum()")
    broken = dataclasses.replace(exercise, probes=(probe,))
    (expected,) = expected_values(broken, draw_inputs(broken, 0)[:1])
    assert any("central differences give" in d for d in expected.disagreements)


def test_correct_work_passes_and_cuda_is_skipped_without_a_gpu(sandbox: Sandbox, exercise: Exercise,
                                                               tmp_path: Path) -> None:
    result = grade_source(sandbox, exercise, tmp_path, """\
        import torch
        def square_grad(t, c):
            t = t.detach().clone().requires_grad_()
            loss = c * (t ** 2).sum()
            loss.backward()
            return t.grad
        def backward_twice(w, retain):
            w = torch.tensor(w, requires_grad=True)
            y = w ** 2
            y.backward(retain_graph=retain)
            y.backward()
            return w.grad.item()
        """)
    checks = statuses(result)
    if torch.cuda.is_available():
        assert checks["gradient of a sum of squares [cuda]"] == ("passed", 1.0, 1.0)
    else:
        assert checks["gradient of a sum of squares"] == ("passed", 2.0, 2.0)  # all the points: CUDA did not run
        assert checks["gradient of a sum of squares [cuda]"] == ("skipped", 0.0, 0.0)
        skipped = next(c for c in result.checks if c.status == "skipped")
        assert skipped.problem == "Skipped: CUDA is not available on this machine."
    assert result.score == result.max_score == 6


def test_cpu_only_when_asked(sandbox: Sandbox, exercise: Exercise, tmp_path: Path) -> None:
    source = (Path(exercise.solution)).read_text()
    result = grade_source(sandbox, exercise, tmp_path, source, devices=("cpu",))
    skipped = next(c for c in result.checks if c.status == "skipped")
    assert skipped.problem == "Skipped: not requested (--device cpu)."
    assert result.score == result.max_score == 6


def test_an_expected_error_that_does_not_come_fails(sandbox: Sandbox, exercise: Exercise, tmp_path: Path) -> None:
    result = grade_source(sandbox, exercise, tmp_path, """\
        def square_grad(t, c):
            t = t.detach().requires_grad_()
            (c * t * t).sum().backward()
            return t.grad
        def backward_twice(w, retain):
            return 4 * w  # never calls backward twice
        """)
    check = next(c for c in result.checks if c.name == "a freed graph cannot be walked twice")
    assert check.status == "failed"
    assert check.problem.startswith("Expected RuntimeError with 'Trying to backward through the graph a second time'")
    assert "finished without an error" in check.problem


def test_wrong_shapes_fail_with_the_shape_named(sandbox: Sandbox, exercise: Exercise, tmp_path: Path) -> None:
    result = grade_source(sandbox, exercise, tmp_path, """\
        def square_grad(t, c):
            t = t.detach().requires_grad_()
            (c * t * t).sum().backward()
            return t.grad.sum(0)
        def backward_twice(w, retain):
            return 0.0
        """, devices=("cpu",))
    check = result.checks[0]
    assert check.status == "failed" and "expected shape (2, 3), got shape (3,)" in check.problem


def test_a_forbidden_import_costs_only_where_it_is_used_and_known_errors_get_advice(
        sandbox: Sandbox, exercise: Exercise, tmp_path: Path) -> None:
    # The exercise forbids numpy: its import gives a placeholder, which costs nothing until used.
    graded = grade_submission(sandbox, load_submission(_write(tmp_path, """\
        import numpy as np
        import torch
        def square_grad(t, c):
            out = c * t * t
            out.backward()  # not reduced to a scalar
            return t.grad
        def backward_twice(w, retain):
            return float(np.sum([1.0]))
        """)), [exercise], seed=0, devices=("cpu",))
    result = graded.exercises[0]
    assert any("imported numpy (student.py:1)" in note for note in graded.notes)
    assert not any("rule" in problem for problem in result.problems)
    square = next(c for c in result.checks if c.name == "gradient of a sum of squares")
    assert square.status == "error" and "Your code raised RuntimeError" in square.problem and "Hint:" in square.problem
    twice = next(c for c in result.checks if c.name == "with retain_graph the bucket fills twice")
    assert twice.status == "error" and "numpy is not available in exercise demo" in twice.problem
    assert result.score == 0


def _write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(source))
    return path


def test_hints_for_known_torch_errors() -> None:
    error = ErrorInfo("RuntimeError", "grad can be implicitly created only for scalar outputs")
    assert hint_for(error) == "backward() needs a single number: reduce the loss with .sum() or .mean() first."
    assert hint_for(ErrorInfo("RuntimeError", "something else")) is None


@pytest.mark.parametrize(
    ("source", "rules", "found"),
    [
        ("loss.backward()\n", SourceRules(require_calls=("backward",)), []),
        ("x = 1\n", SourceRules(require_calls=("backward",)), ["it never calls backward()"]),
        ("x.item()\n", SourceRules(forbid_calls=("item",)), ["it calls item() (line 1)"]),
        ("def f(:\n", SourceRules(require_calls=("backward",)), ["it never calls backward()"]),  # the run says why
        # a call counts under the name it goes through: aliases, chains of them, imports as, getattr
        ("_d = torch.autograd.grad\n_e = _d\n_e(y, x)\n", SourceRules(forbid_calls=("grad",)),
         ["it calls grad() (line 3)"]),
        ("from torch.autograd import grad as g\ng(y, x)\n", SourceRules(forbid_calls=("grad",)),
         ["it calls grad() (line 2)"]),
        ("a, b = loss.backward, 1\na()\n", SourceRules(require_calls=("backward",)), []),
        ('getattr(torch.autograd, "grad")(y, x)\n', SourceRules(forbid_calls=("grad",)), ["it calls grad() (line 1)"]),
        ("t.grad.zero_()\ng = t.grad\ng.zero_()\n", SourceRules(forbid_calls=("grad",)), []),  # reads are no calls
    ],
)
def test_source_rules(source: str, rules: SourceRules, found: list[str]) -> None:
    assert [v.describe() for v in check_source([SourceCell("student.py", source)], rules)] == found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import torch\n", ["line 1 imports torch"]),
        ("from torch.nn import functional\n", ["line 1 imports torch.nn"]),
        ("import math, random\nfrom . import helpers\n", []),
        ("import helpers\n", []),  # the student's own module, beside the graded file
        ("def f(:\n", []),  # the run reports the syntax error
    ],
)
def test_imports_the_exercise_does_not_allow_get_an_early_word(source: str, found: list[str]) -> None:
    notes = import_notes([SourceCell("student.py", source)], engine_policy().permits, "node-mul", ["helpers"])
    assert [note.split(",")[0] for note in notes] == found


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_checks_run_and_share_the_points(sandbox: Sandbox, exercise: Exercise, tmp_path: Path) -> None:
    result = grade_source(sandbox, exercise, tmp_path, Path(exercise.solution).read_text())
    checks = statuses(result)
    assert checks["gradient of a sum of squares"] == ("passed", 1.0, 1.0)
    assert checks["gradient of a sum of squares [cuda]"] == ("passed", 1.0, 1.0)
