"""Operations a course adds to the reference engine: used by an exercise, proved by validate, refused when wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.core.errors import GraderError
from grader.core.values import Number
from grader.course.pack.release import release
from grader.course.validate import validate_exercise
from grader.judge.catalog import Catalog
from grader.judge.course_ops import load_ops, prove
from grader.judge.oracle import expected_values
from grader.run.inputs import draw_inputs
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "examples" / "courses" / "micrograd"


def _course_with(tmp_path: Path, ops: str) -> Catalog:
    """The micrograd course's value-abs exercise, with `ops` as its reference_ops.py."""
    root = tmp_path / "course"
    shutil.copytree(COURSE / "value-abs", root / "value-abs")
    (root / "reference_ops.py").write_text(ops, encoding="utf-8")
    return Catalog(root)


def test_an_exercise_uses_the_courses_abs_and_validate_proves_it(sandbox: Sandbox) -> None:
    exercise = Catalog(COURSE).load("value-abs")
    assert exercise.course_ops == COURSE / "reference_ops.py"
    validation = validate_exercise(exercise, sandbox, seeds=(0, 1))
    assert validation.ok, [f.text for f in validation.findings if not f.ok]
    assert "added operations (abs) agree with torch float64 and central differences" in validation.findings[0].text
    expected = expected_values(exercise, draw_inputs(exercise, 0), seed=0, torch_engine=False)
    left = expected[1].observations
    assert isinstance(left, dict) and isinstance(left["x.grad"], Number)
    c = draw_inputs(exercise, 0)[1]["c"]
    assert left["x.grad"].value == pytest.approx(-c)  # d(|a| * c)/da at a < 0


def test_a_wrong_slope_is_refused_naming_the_file_and_the_op(tmp_path: Path) -> None:
    catalog = _course_with(tmp_path, "def f(x):\n    return abs(x), (1.0,)\n\n"
                                     "OPS = {'abs': {'forward': f, 'torch': lambda x: x.abs()}}\n")
    (op,) = load_ops(catalog.load("value-abs").course_ops)
    problems = prove(op)
    assert len(problems) == 1
    assert problems[0].startswith(f"{tmp_path / 'course' / 'reference_ops.py'}, line 1: OPS['abs']: at (")
    assert "torch float64 gives -1" in problems[0]


def test_a_slope_that_disagrees_with_its_own_value_is_refused(tmp_path: Path) -> None:
    # forward and torch agree with each other on the slope, but not with the value: central differences tell
    catalog = _course_with(tmp_path, "def f(x):\n    return 2 * x, (3.0,)\n\n"
                                     "OPS = {'twice': {'forward': f, 'torch': lambda x: 3 * x - x.detach()}}\n")
    (op,) = load_ops(catalog.load("value-abs").course_ops)
    assert any("central differences give 2" in p for p in prove(op)), prove(op)


@pytest.mark.parametrize(("source", "says"), [
    ("X = 1\n", "defines no OPS mapping"),
    ("OPS = {'relu': {'forward': abs, 'torch': abs}}\n", "the reference engine has relu already"),
    ("OPS = {'abs': {'forward': abs}}\n", "needs 'forward'"),
    ("OPS = {'abs': {'forward': abs, 'torch': abs, 'domian': 'any'}}\n", "unknown key 'domian'"),
    ("OPS = {'abs': {'forward': abs, 'torch': abs, 'domain': 'even'}}\n", "'domain' must be one of"),
    ("raise ValueError('no')\n", "cannot be loaded: ValueError: no"),
])
def test_a_malformed_reference_ops_is_a_clear_error(tmp_path: Path, source: str, says: str) -> None:
    catalog = _course_with(tmp_path, source)
    with pytest.raises(GraderError, match=r"reference_ops\.py") as raised:
        load_ops(catalog.load("value-abs").course_ops)
    assert says in str(raised.value)


def test_a_released_pack_carries_the_courses_operations(tmp_path: Path) -> None:
    written = release(Catalog(COURSE), tmp_path / "pack", ["value-abs"], [])
    assert tmp_path / "pack" / "exercises" / "reference_ops.py" in written
    packed = Catalog(tmp_path / "pack" / "exercises").load("value-abs")
    assert packed.solution is None and packed.course_ops is not None
    assert all(e.disagreements == () for e in expected_values(packed, draw_inputs(packed, 0), torch_engine=False))
