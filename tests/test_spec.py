"""Specs load into frozen Exercises; a bad spec is one message naming its file, line and field."""

from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

import pytest

from grader.core.errors import GraderError, SpecError
from grader.judge.catalog import Catalog
from grader.judge.spec import load_exercise

GOOD = """\
id: demo
title: A demo
points: 3
engine: scalar
defines: {Node: class}
tolerance: {rtol: 1e-6, atol: 1e-9}
probes:
  - name: product
    points: 2
    inputs: {a: scalar, b: 1.5, n: exponent}
    code: |
      x = Node(a)
      out = (x * b) ** n
      out.backward()
    observe: [out.value, {dx: x.grad}]
    output: out.value
    gradients: {dx: a}
  - name: lesson
    points: 1
    visibility: hidden
    inputs: {a: 0.5}
    code: out = Node(a) * 2
    observe: [out.value]
    printed: {out.value: "1/1"}
"""

MUTANT = '''\
# exercise: demo
"""Mutant of demo.

mistake: always-zero
hint: the gradient is not zero;
  look again.
"""
'''


def write(tmp_path: Path, spec: str, *, folder: str = "demo", mutant: str = MUTANT) -> Path:
    root = tmp_path / folder
    (root / "mutants").mkdir(parents=True)
    (root / "starter.py").write_text("# exercise: demo\n")
    (root / "solution.py").write_text("# exercise: demo\n")
    (root / "mutants" / "zero.py").write_text(mutant)
    path = root / "exercise.yaml"
    path.write_text(spec)
    return path


def error_for(tmp_path: Path, spec: str, **kwargs: str) -> str:
    with pytest.raises(SpecError) as info:
        load_exercise(write(tmp_path, spec, **kwargs))
    return str(info.value)


def test_a_good_spec_loads_into_a_frozen_exercise(tmp_path: Path) -> None:
    exercise = load_exercise(write(tmp_path, GOOD))
    assert exercise.id == "demo" and exercise.points == 3 and exercise.defines == (("Node", "class"),)
    first, second = exercise.probes
    assert [(i.name, i.kind, i.values) for i in first.inputs] == [
        ("a", "scalar", ()), ("b", "literal", (1.5,)), ("n", "exponent", ())]
    assert first.observe == (("out.value", "out.value"), ("dx", "x.grad"))
    assert first.gradients == (("dx", "a"),) and first.output == "out.value"
    assert first.tolerance.rtol == 1e-6  # YAML 1.1 would have read 1e-6 as a string
    assert second.visibility == "hidden" and second.printed == (("out.value", "1/1"),)
    assert exercise.mutants[0].mistake == "always-zero"
    assert exercise.mutants[0].hint == "the gradient is not zero; look again."
    assert exercise.time_limit == 10.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        exercise.points = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    ("change", "line", "fragment"),
    [
        (("points: 3", "points: three"), 3, "points: must be a number, got 'three'"),
        (("    points: 2\n", "    pionts: 2\n"), 8, "probes[0]: unknown field 'pionts'"),
        (("title: A demo\n", ""), 1, "missing the required field 'title'"),
        (("engine: scalar", "engine: numpy"), 4, "engine: must be one of scalar, torch, tensor, library; got 'numpy'"),
        (("engine: scalar", "engine: tensor"), 5, "defines: the tensor reference has no Node; it knows Tensor"),
        (("{a: scalar, b: 1.5", "{a: sclar, b: 1.5"), 10, "probes[0].inputs.a: 'sclar' is not a valid value here"),
        (("points: 3", "points: 4"), 3, "probes' points add up to 3"),
        (("out = (x * b) ** n", "out = (x * b) **"), 13,
         "probes[0].code: is not valid Python: invalid syntax (line 2 of the code)"),
        (("gradients: {dx: a}", "gradients: {dy: a}"), 17, "'dy' is not one of this probe's observations"),
        (("gradients: {dx: a}", "gradients: {dx: q}"), 17, "'q' is not one of this probe's inputs"),
        (("    output: out.value\n", ""), 16, "needs 'output'"),
        (("- name: lesson", "- name: product"), 18, "'product' is used by an earlier probe"),
        (("id: demo", "id: other"), 1, "is 'other' but the folder is 'demo'"),
        (("title: A demo", "title: A demo\ntitle: Again"), 3, "title appears twice"),
        (("visibility: hidden", "visibility: secret"), 20, "must be one of public, hidden"),
        (("probes:\n", "probes:\n  - [1, 2]\n"), 8, "probes[0]: must be a mapping"),
    ],
)
def test_a_bad_spec_names_file_line_and_field(tmp_path: Path, change: tuple[str, str], line: int,
                                              fragment: str) -> None:
    old, new = change
    assert old in GOOD
    message = error_for(tmp_path, GOOD.replace(old, new, 1))
    assert f"exercise.yaml, line {line}:" in message, message
    assert fragment in message, message


def test_not_yaml_at_all(tmp_path: Path) -> None:
    message = error_for(tmp_path, "id: demo\ntitle: [unclosed\n")
    assert re.search(r"exercise\.yaml, line \d+: not valid YAML", message), message


def test_empty_file(tmp_path: Path) -> None:
    assert "the file is empty" in error_for(tmp_path, "")


def test_not_a_mapping(tmp_path: Path) -> None:
    assert "the top level: must be a mapping" in error_for(tmp_path, "- just\n- a list\n")


def test_missing_starter_file(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    (path.parent / "starter.py").unlink()
    with pytest.raises(SpecError, match=r"line 1: starter: file .*starter\.py does not exist"):
        load_exercise(path)


def test_mutant_without_its_declaration(tmp_path: Path) -> None:
    message = error_for(tmp_path, GOOD, mutant='"""Mutant of demo, undeclared."""\n')
    assert "zero.py, line 1: the docstring has no 'mistake:' line" in message


def test_spec_that_is_not_utf8(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    path.write_bytes(b"id: d\xe9mo\n")
    with pytest.raises(SpecError, match="not UTF-8"):
        load_exercise(path)


def test_spec_errors_are_grader_errors(tmp_path: Path) -> None:
    assert issubclass(SpecError, GraderError)


def test_unknown_exercise_suggests_close_ids(catalog: Catalog) -> None:
    with pytest.raises(GraderError, match="Did you mean node-mul"):
        catalog.load("node-mull")


def test_every_shipped_exercise_loads(catalog: Catalog) -> None:
    exercises = catalog.load_all()
    assert exercises and all(e.probes for e in exercises)


def test_the_format_documentation_shows_a_spec_that_loads(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parent.parent / "exercises" / "README.md").read_text()
    example = textwrap.dedent(readme.split("```yaml\n", 1)[1].split("```", 1)[0])
    root = tmp_path / "node-mul"
    root.mkdir()
    for name in ("starter.py", "solution.py"):
        (root / name).write_text("# exercise: node-mul\n")
    (root / "mutants").mkdir()
    (root / "exercise.yaml").write_text(example.replace("points: 10", "points: 2"))
    exercise = load_exercise(root / "exercise.yaml")
    assert exercise.probes[0].printed == (("out.value", "0.1611"),)


def test_only_an_engine_exercise_may_go_without_a_solution(tmp_path: Path) -> None:
    # A released pack: the reference engine computes a scalar exercise's values; a torch one needs the
    # solution or the values stored from it.
    path = write(tmp_path, GOOD)
    (path.parent / "solution.py").unlink()
    assert load_exercise(path).solution is None
    torch_spec = GOOD.replace("engine: scalar", "engine: torch")
    assert torch_spec != GOOD
    path.write_text(torch_spec)
    with pytest.raises(SpecError, match=r"solution: file .*solution\.py does not exist"):
        load_exercise(path)
    path.write_text(GOOD + "solution: mine.py\n")  # named, it must be there
    with pytest.raises(SpecError, match=r"solution: file .*mine\.py does not exist"):
        load_exercise(path)
