"""grade validate refuses probes that cannot tell right from wrong: a gradient that cancels, a noise-scale value."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.errors import SpecError
from grader.course.validate import degenerate_probes
from grader.judge.spec import load_exercise


def _exercise(tmp_path: Path, code: str, observe: str, extra: str = "") -> Path:
    folder = tmp_path / "ex"
    folder.mkdir()
    for name in ("starter.py", "solution.py"):
        (folder / name).write_text("# exercise: ex\n")
    body = "\n".join(f"      {line}" for line in code.splitlines())
    (folder / "exercise.yaml").write_text(
        f"id: ex\ntitle: t\npoints: 1\nengine: scalar\ndefines: {{Node: class}}\nprobes:\n"
        f"  - name: the probe\n    points: 1\n    inputs: {{a: scalar, k: scalar, m: scalar}}\n    code: |\n{body}\n"
        f"    observe: {observe}\n{extra}")
    return folder / "exercise.yaml"


def _findings(path: Path) -> list[str]:
    return [f.text for f in degenerate_probes(load_exercise(path), seeds=(0, 1, 2))]


def test_a_gradient_that_cancels_is_refused_naming_the_probe(tmp_path: Path) -> None:
    path = _exercise(tmp_path, "x = Node(a)\nout = (k / x) * (x / m)\nout.backward()", "[out.value, x.grad]",
                     "    output: out.value\n    gradients: {x.grad: a}\n")
    (finding,) = _findings(path)
    assert finding.startswith("probe 'the probe': the declared gradient x.grad is zero up to rounding at every seed")
    assert "(k / x) * (x / m), which is k / m" in finding


def test_an_expected_value_below_atol_is_refused(tmp_path: Path) -> None:
    path = _exercise(tmp_path, "x = Node(a)\nout = x * k", "[{small: out.value * 1.0e-11}, out.value]")
    (finding,) = _findings(path)
    assert finding.startswith("probe 'the probe': small is expected ") and "rounding noise (atol is 1e-09)" in finding


def test_an_exact_zero_is_a_value_and_near_zero_lets_a_lessons_zero_through(tmp_path: Path) -> None:
    # a closed relu gate passes nothing: 0.0 exactly, which a leaking gate does not give
    closed = _exercise(tmp_path, "x = Node(-abs(a))\nout = x.relu() * k\nout.backward()", "[x.grad]",
                       "    output: out.value\n    gradients: {x.grad: a}\n")
    assert _findings(closed) == []
    (tmp_path / "b").mkdir()
    cancelling = _exercise(tmp_path / "b", "x = Node(a)\nout = (k / x) * (x / m)\nout.backward()", "[x.grad]",
                           "    near_zero: [x.grad]\n    output: out.value\n    gradients: {x.grad: a}\n")
    assert _findings(cancelling) == []


def test_near_zero_names_an_observation(tmp_path: Path) -> None:
    path = _exercise(tmp_path, "x = Node(a)", "[x.value]", "    near_zero: [x.grad]\n")
    with pytest.raises(SpecError, match=r"probes\[0\]\.near_zero\[0\]: 'x.grad' is not one of this probe's"):
        load_exercise(path)
