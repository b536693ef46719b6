"""Every check carries why it scored what it did, as data; the class summary counts those causes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.cli import main
from grader.judge.catalog import Catalog
from grader.judge.report import Cause, Report
from grader.judge.session import grade
from grader.outputs.render_json import report_from_dict, report_schema, report_to_dict
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Catalog(ROOT / "exercises")
SOLUTION = (ROOT / "exercises" / "node-mul" / "solution.py").read_text()


def causes(report: Report) -> list[Cause]:
    return [c.cause for e in report.exercises for c in e.checks]


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    with Sandbox(hide=[CATALOG.root]) as box:
        yield box


def graded(tmp_path: Path, sandbox: Sandbox, source: str, exercise: str = "node-mul", **options: object) -> Report:
    path = tmp_path / "submission.py"
    path.write_text(source)
    return grade(path, [CATALOG.load(exercise)], sandbox=sandbox, **options)  # type: ignore[arg-type]


def test_a_right_answer_and_a_wrong_one(tmp_path: Path, sandbox: Sandbox) -> None:
    assert {c.kind for c in causes(graded(tmp_path, sandbox, SOLUTION))} == {"passed"}
    mutant = (ROOT / "exercises" / "node-mul" / "mutants").glob("*.py").__next__().read_text()
    kinds = {c.kind for c in causes(graded(tmp_path, sandbox, mutant))}
    assert "wrong-value" in kinds and kinds <= {"passed", "wrong-value"}


def test_the_students_exception_with_its_type_and_line(tmp_path: Path, sandbox: Sandbox) -> None:
    source = SOLUTION.replace("    def __mul__(self, other):\n", "    def __mul__(self, other):\n"
                              "        raise KeyError('no')\n", 1)
    line = source.splitlines().index("        raise KeyError('no')") + 1
    found = {c for c in causes(graded(tmp_path, sandbox, source)) if c.kind != "passed"}
    # a hidden check keeps only that it was an exception: its type and line are the submission's to choose
    assert found == {Cause("exception", "KeyError", line), Cause("exception")}


def test_the_untouched_starter_is_not_attempted(tmp_path: Path, sandbox: Sandbox) -> None:
    starter = (ROOT / "exercises" / "node-mul" / "starter.py").read_text()
    kinds = {c.kind for c in causes(graded(tmp_path, sandbox, starter))}
    assert "not-attempted" in kinds and "exception" not in kinds


def test_a_loop_is_a_timeout_and_a_missing_class_is_named(tmp_path: Path, sandbox: Sandbox) -> None:
    looping = SOLUTION.replace("    def __mul__(self, other):\n", "    def __mul__(self, other):\n"
                               "        while True:\n            pass\n", 1)
    assert "timeout" in {c.kind for c in causes(graded(tmp_path, sandbox, looping, time_limit=1.0))}
    missing = {c for c in causes(graded(tmp_path, sandbox, "VALUE = 1\n"))}
    assert {c.kind for c in missing} == {"missing-name"} and all("Node" in c.detail for c in missing)


def test_a_file_that_does_not_load(tmp_path: Path, sandbox: Sandbox) -> None:
    found = set(causes(graded(tmp_path, sandbox, "import math\n\nx = 1 / 0\n")))
    assert found == {Cause("exception", "ZeroDivisionError", 3)}


def test_gradients_worked_out_by_hand_break_the_rule(tmp_path: Path, sandbox: Sandbox) -> None:
    by_hand = '''# exercise: first-gradient
import torch


def neuron_grads(x, y, w, b):
    s = torch.sigmoid(torch.tensor(w * x + b, dtype=torch.float64)).item()
    loss = (s - y) ** 2
    slope = 2 * (s - y) * s * (1 - s)
    return loss, slope * x, slope
'''
    kinds = {c.kind for c in causes(graded(tmp_path, sandbox, by_hand, "first-gradient"))}
    assert kinds == {"rule"}


def test_the_cause_is_in_the_json_and_read_back(tmp_path: Path, sandbox: Sandbox) -> None:
    import jsonschema

    source = SOLUTION.replace("    def __mul__(self, other):\n", "    def __mul__(self, other):\n"
                              "        raise KeyError('no')\n", 1)
    data = report_to_dict(graded(tmp_path, sandbox, source))
    jsonschema.validate(data, report_schema())
    assert data["version"] == "1.9"
    kinds = {c["cause"]["kind"] for e in data["exercises"] for c in e["checks"]}
    assert kinds == {"exception"}  # every check of node-mul multiplies
    assert report_to_dict(report_from_dict(json.loads(json.dumps(data)))) == data


def test_the_summary_counts_causes_not_wordings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text(SOLUTION)
    (folder / "bob.py").write_text(SOLUTION.replace("    def __mul__(self, other):\n", "    def __mul__(self, other):\n"
                                                    "        raise KeyError('no')\n", 1))
    (folder / "cid.py").write_text("# exercise: node-mul\nimport math\n\nx = 1 / 0\n")
    out = tmp_path / "out"
    assert main(["batch", str(folder), "--exercise", "node-mul", "--out", str(out)]) == 0
    capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    kinds = {k["kind"]: k["students"] for k in summary["error_kinds"]}
    assert kinds == {"KeyError": 1, "ZeroDivisionError": 1, "an error in a hidden check": 1}
