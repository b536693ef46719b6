"""The tensor engine in specs, inputs, oracles and the sandbox: numpy only for students, probe rules for arrays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.core.errors import GraderError
from grader.course.validate import validate_exercise
from grader.judge.catalog import Catalog
from grader.judge.oracle import _central_difference
from grader.judge.spec import load_exercise
from grader.run.inputs import TensorInput, draw_inputs
from grader.run.sandbox import Sandbox, policy_of, runs_lean

ROOT = Path(__file__).resolve().parent.parent

SPEC = """id: demo
title: A demo
points: 2
engine: tensor
defines: {Tensor: class}
inputs:
  labels: {tensor: [6], integers: [0, 4]}
probes:
  - name: first
    points: 1
    inputs: {a: {tensor: [SHAPE]}}
    code: |
      x = Tensor(a)
    observe: [x.data, labels]
  - name: second
    points: 1
    code: |
      y = labels * 1
    observe: [y]
"""


def write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir(exist_ok=True)
    (folder / "exercise.yaml").write_text(text, encoding="utf-8")
    (folder / "starter.py").write_text("# exercise: demo\n", encoding="utf-8")
    (folder / "solution.py").write_text("# exercise: demo\n", encoding="utf-8")
    return folder / "exercise.yaml"


def test_inputs_shared_by_the_exercise_are_one_draw_and_integers_stay_in_range(tmp_path: Path) -> None:
    exercise = load_exercise(write(tmp_path, SPEC.replace("SHAPE", "3, 5")))
    first, second = draw_inputs(exercise, 7)
    assert first["labels"] == second["labels"]
    labels = first["labels"]
    assert isinstance(labels, TensorInput) and labels.dtype == "int64" and labels.shape == (6,)
    assert all(0 <= v < 4 and v == int(v) for v in labels.data)
    assert draw_inputs(exercise, 7) == (first, second) and draw_inputs(exercise, 8)[0]["labels"] != labels


@pytest.mark.parametrize(("change", "fragment"), [
    (("{tensor: [6], integers: [0, 4]}", "{tensor: [6], integers: [0, 4], dtype: float32}"),
     "'integers: [low, high]' draws whole numbers"),
    (("    observe: [y]\n", "    observe: [y]\n    output: y.sum()\n    gradients: {y: labels}\n"),
     "'labels' holds integers, which have no gradient"),
    (("defines: {Tensor: class}", "defines: {Node: class}"), "the tensor reference has no Node"),
    (("  - name: second\n    points: 1\n", "  - name: second\n    points: 1\n    inputs: {labels: scalar}\n"),
     "is also an input of the whole exercise"),
])
def test_bad_tensor_specs_say_what_and_where(tmp_path: Path, change: tuple[str, str], fragment: str) -> None:
    text = SPEC.replace("SHAPE", "3, 5")
    assert change[0] in text
    with pytest.raises(GraderError, match=r"exercise\.yaml, line") as caught:
        load_exercise(write(tmp_path, text.replace(*change)))
    assert fragment in str(caught.value)


def test_probe_rules_refuse_shapes_that_hide_axis_mistakes(tmp_path: Path, sandbox: Sandbox) -> None:
    square = load_exercise(write(tmp_path, SPEC.replace("SHAPE", "4, 4")))
    findings = validate_exercise(square, sandbox, [0], devices=("cpu",)).findings
    assert any(not f.ok and "input a: shape [4, 4]" in f.text for f in findings)
    allowed = load_exercise(write(tmp_path, SPEC.replace("{tensor: [SHAPE]}", "{tensor: [4, 4], equal_dims: true}")))
    findings = validate_exercise(allowed, sandbox, [0], devices=("cpu",)).findings
    assert any(f.ok and "dimensions differ" in f.text for f in findings)


def test_central_differences_sample_a_large_tensor() -> None:
    big = TensorInput((2, 3, 4, 5), tuple(float(i) for i in range(120)))
    slopes = _central_difference(lambda changed: sum(changed["x"].data), {"x": big}, "x", seed=3)  # type: ignore[union-attr]
    indices = [i for i, _ in slopes]
    assert len(indices) == 64 and indices == sorted(set(indices))
    assert all(abs(slope - 1.0) < 1e-6 for _, slope in slopes)
    assert [i for i, _ in _central_difference(lambda c: 0.0, {"x": big}, "x", seed=3)] == indices


def test_tensor_exercises_run_lean_with_numpy(catalog: Catalog) -> None:
    tensor, scalar, torch_exercise = (catalog.load(i) for i in ("tensor-matmul", "node-mul", "first-gradient"))
    assert runs_lean([tensor]) and runs_lean([tensor, scalar]) and not runs_lean([tensor, torch_exercise])
    # numpy is allowed, and so in its zygote's tree; torch is in neither
    assert policy_of(tensor).packages == ("numpy",) and policy_of(tensor).key == "lean:numpy"
    assert policy_of(scalar).packages == () and not policy_of(tensor).permits("torch")
    assert policy_of(torch_exercise).allows_everything


def test_a_student_of_a_tensor_exercise_finds_numpy_warm_and_no_torch(tmp_path: Path) -> None:
    # The file marks its forward values if torch is loaded in its process, or if numpy was not loaded before it ran.
    solution = (ROOT / "exercises" / "tensor-elementwise" / "solution.py").read_text(encoding="utf-8")
    spy = solution.replace("import numpy as np\n", "import sys\n\nLOADED = vars(sys)['modules']\nWARM = 'numpy' in "
                           "LOADED\nTORCH = 'torch' in LOADED\nimport numpy as np\n", 1).replace(
        "self.data = np.array(data, dtype=np.float64)",
        "self.data = np.array(data, dtype=np.float64) + (0.0 if WARM and not TORCH else 1000.0)", 1)
    path = tmp_path / "spy.py"
    path.write_text(spy, encoding="utf-8")
    # A fresh interpreter, as a student runs `grade`: the grading process must not import torch either.
    script = ("import json, sys; from grader.cli import main; code = main([sys.argv[1], '--format', 'json', "
              "'--output', sys.argv[2]]); print(json.dumps({'code': code, 'torch': 'torch' in sys.modules}))")
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-c", script, str(path), str(report)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome == {"code": 0, "torch": False}, done.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["score"] == 10
