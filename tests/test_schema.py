"""The JSON Schema of exercise.yaml: the loader's own, printed by `grade schema`, named by every shipped spec."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from grader.cli import main
from grader.core.errors import SpecError
from grader.judge.spec import load_exercise
from grader.judge.spec_yaml import parse_spec, schema_text

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted([*ROOT.glob("exercises/*/exercise.yaml"), *ROOT.glob("examples/courses/*/*/exercise.yaml")])


def test_grade_schema_prints_the_schema_the_loader_checks_against(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    printed = capsys.readouterr().out
    assert printed == schema_text("exercise")
    assert json.loads(printed)["properties"]["contract"]["additionalProperties"] is False
    assert main(["schema", "assignment"]) == 0
    assert json.loads(capsys.readouterr().out)["properties"]["exercises"]


def test_the_schema_validates_every_shipped_spec_and_each_names_it_for_editors() -> None:
    validator = jsonschema.Draft202012Validator(json.loads(schema_text("exercise")))
    assert len(SPECS) >= 33
    for spec in SPECS:
        errors = [e.message for e in validator.iter_errors(parse_spec(spec))]
        assert errors == [], spec
        first = spec.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), spec
        assert (spec.parent / first.split("=", 1)[1]).resolve() == ROOT / "grader" / "schemas" / "exercise.schema.json"


def test_the_schema_rejects_a_misspelt_key_and_the_loader_says_where(tmp_path: Path) -> None:
    folder = tmp_path / "node-mul"
    folder.mkdir()
    for name in ("starter.py", "solution.py"):
        (folder / name).write_text("# exercise: node-mul\n")
    text = (ROOT / "exercises" / "node-mul" / "exercise.yaml").read_text(encoding="utf-8")
    misspelt = text.replace("time_limit: 5", "time_limit: 5\ntolerence: {rtol: 1.0e-6}")
    assert misspelt != text
    (folder / "exercise.yaml").write_text(misspelt, encoding="utf-8")
    validator = jsonschema.Draft202012Validator(json.loads(schema_text("exercise")))
    errors = validator.iter_errors(parse_spec(folder / "exercise.yaml"))
    assert [e.validator for e in errors] == ["additionalProperties"]
    with pytest.raises(SpecError, match=r"line \d+: the top level: unknown field 'tolerence'"):
        load_exercise(folder / "exercise.yaml")
