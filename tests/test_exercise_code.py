"""grader.judge.diagnose.exercise_code: an exercise's own diagnosis lives in its folder (diagnosis.py), is
loaded as the course's trusted code, travels with a released pack, and a broken one is a finding of
`grade validate`, never a silent loss of names.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from grader.core.errors import GraderError
from grader.course.pack.release import release
from grader.course.validate import validate_exercise
from grader.judge.catalog import Catalog
from grader.judge.diagnose.exercise_code import exercise_code
from grader.judge.diagnose.passes import PASSES
from grader.judge.spec import load_exercise
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Catalog(ROOT / "exercises")
#: the functions of one exercise each, which only that exercise's folder may name
ONE_EXERCISE = ("batchnorm_forward", "batchnorm_backward", "softmax_loss", "manual_backward", "ninja_graph")


def test_each_exercise_declares_its_own_diagnosis() -> None:
    chain = exercise_code(CATALOG.load("manual-backprop"))
    assert len(chain.passes) == 1 and chain.variants is None
    for exercise_id, family in (("layer-backward", "batchnorm"), ("softmax-cross-entropy", "softmax")):
        code = exercise_code(CATALOG.load(exercise_id))
        assert code.variants is not None and not code.passes
        found = code.variants({})
        assert found and all(v.family.startswith(family) for v in found)  # type: ignore[attr-defined]
    assert exercise_code(CATALOG.load("node-mul")) == exercise_code(CATALOG.load("tensor-matmul"))


def test_the_engine_names_no_exercises_function() -> None:
    """The judge's modules are general: code written for one exercise is in that exercise's folder."""
    found = []
    for path in (ROOT / "grader" / "judge").rglob("*.py"):
        names = {node.id for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Name)}
        strings = {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        found += [f"{path.relative_to(ROOT)}: {name}" for name in ONE_EXERCISE if name in names | strings]
    assert found == []


def test_every_kind_of_engine_runs_the_exercises_own_passes() -> None:
    assert all(any(step.name == "exercise" for step in passes) for passes in PASSES.values())


def test_a_released_pack_carries_the_exercises_diagnosis(tmp_path: Path) -> None:
    written = release(CATALOG, tmp_path, ["layer-backward"], [])
    copy = tmp_path / "exercises" / "layer-backward" / "diagnosis.py"
    assert copy in written
    assert copy.read_bytes() == (ROOT / "exercises" / "layer-backward" / "diagnosis.py").read_bytes()
    packed = load_exercise(copy.parent / "exercise.yaml")
    assert packed.diagnosis == copy and exercise_code(packed).variants is not None


@pytest.mark.parametrize("source", ["raise ValueError('typo')\n", "PASSES = [print]\n", "variants = 3\n"])
def test_a_broken_diagnosis_is_a_validate_finding_naming_the_file(tmp_path: Path, source: str) -> None:
    folder = tmp_path / "softmax-cross-entropy"
    shutil.copytree(ROOT / "exercises" / "softmax-cross-entropy", folder)
    (folder / "diagnosis.py").write_text(source, encoding="utf-8")
    exercise = load_exercise(folder / "exercise.yaml")
    with pytest.raises(GraderError, match=r"diagnosis\.py"):
        exercise_code(exercise)
    with Sandbox(lean=True, hide=[tmp_path]) as sandbox:
        validation = validate_exercise(exercise, sandbox, seeds=(0,), devices=("cpu",), variant_seeds=(0,))
    assert not validation.ok
    assert any(not f.ok and "diagnosis.py" in f.text for f in validation.findings)
