"""Engine contracts: a course on micrograd's `Value(data)` grades micrograd's own engine.py, unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from grader.core.contract import DEFAULT, Contract, adapt, rename
from grader.core.errors import SpecError
from grader.core.values import Number
from grader.judge.catalog import Catalog
from grader.judge.grading import grade_submission
from grader.judge.oracle import expected_values
from grader.judge.report import ExerciseResult
from grader.judge.spec import load_exercise
from grader.run.inputs import draw_inputs
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox
from reference.scalar import Node

ROOT = Path(__file__).resolve().parent.parent
COURSE = Catalog(ROOT / "examples" / "courses" / "micrograd")
MICROGRAD = Contract(class_name="Value", value="data")


def _original(corpus_file: str, tmp_path: Path) -> Path:
    """A corpus file as its repository has it: without the adapter the corpus appends for the lessons' names."""
    entry = next(e for e in yaml.safe_load((ROOT / "corpus" / "manifest.yaml").read_text(encoding="utf-8"))["files"]
                 if e["file"] == corpus_file)
    text = (ROOT / "corpus" / corpus_file).read_text(encoding="utf-8")
    assert entry["source"]["repo"] == "karpathy/micrograd" and text.endswith(entry["adapter"])
    original = text[: -len(entry["adapter"])]
    assert "Node" not in original and ".value" not in original  # micrograd's own names only
    path = tmp_path / "engine.py"
    path.write_text(original, encoding="utf-8")
    return path


def _grade(sandbox: Sandbox, path: Path, exercise_id: str) -> ExerciseResult:
    graded = grade_submission(sandbox, load_submission(path), [COURSE.load(exercise_id)], seed=0, devices=("cpu",))
    return graded.exercises[0]


def test_the_micrograd_course_declares_micrograds_names() -> None:
    assert COURSE.ids() == ["value-abs", "value-backward", "value-mul", "value-pow"]
    for exercise in COURSE.load_all():
        assert exercise.contract == Contract("Value", "data", "grad", "backward")
        assert dict(exercise.defines) == {"Value": "class"}
        assert all("Node" not in probe.code for probe in exercise.probes)


@pytest.mark.parametrize("exercise_id", ["value-mul", "value-pow", "value-backward"])
def test_micrograds_engine_unchanged_scores_full_marks(sandbox: Sandbox, tmp_path: Path, exercise_id: str) -> None:
    result = _grade(sandbox, _original("micrograd-5bb6392.py", tmp_path), exercise_id)
    assert result.score == result.max_score == 10, [(c.name, c.status, c.message) for c in result.checks]


def test_a_stale_visited_flag_in_micrograds_history_is_diagnosed(sandbox: Sandbox, tmp_path: Path) -> None:
    # micrograd at 9fd9cc0 marks nodes _visited during the sort and never clears the mark
    result = _grade(sandbox, _original("micrograd-9fd9cc0.py", tmp_path), "value-backward")
    failed = {c.name for c in result.checks if c.status == "failed"}
    assert failed == {"backward twice on one graph", "a new graph over old nodes"}
    for check in result.checks:
        if check.name in failed:
            assert check.diagnosis is not None and check.diagnosis.rule is not None
            assert (check.diagnosis.rule.how, check.diagnosis.rule.method) == ("visited", "backward")


def test_micrograds_first_commit_is_told_its_output_is_never_seeded(sandbox: Sandbox, tmp_path: Path) -> None:
    result = _grade(sandbox, _original("micrograd-0401485.py", tmp_path), "value-mul")
    assert result.score < result.max_score
    rules = {(c.diagnosis.rule.how, c.diagnosis.rule.method) for c in result.checks
             if c.diagnosis is not None and c.diagnosis.rule is not None}
    assert rules == {("seeding", "backward")}, rules


def test_a_lessons_node_fails_a_micrograd_exercise_for_its_names(sandbox: Sandbox) -> None:
    result = _grade(sandbox, ROOT / "exercises" / "node-mul" / "solution.py", "value-mul")
    assert result.score == 0
    assert any("Value" in problem for problem in result.problems)


def test_the_trusted_engines_answer_to_the_contracts_names() -> None:
    value = adapt(Node, MICROGRAD)
    x = value(3.0)
    out = x * x * 2.0
    out.backward()
    assert (out.data, x.grad, type(out)) == (18.0, 12.0, value)
    assert adapt(Node, MICROGRAD) is value and adapt(Node, DEFAULT) is Node
    renamed = adapt(Node, Contract("Scalar", "val", "g", "backprop"))(2.0)
    (renamed * renamed).backprop()
    assert (renamed.val, renamed.g) == (2.0, 4.0)


def test_probes_written_in_the_lessons_names_are_renamed_to_the_contracts() -> None:
    code = "x = Node(a)\nout = x * x\nout.backward()\nvalue = out.value + x.grad"
    assert rename(code, MICROGRAD) == "x = Value(a)\nout = x * x\nout.backward()\nvalue = out.data + x.grad"
    assert rename(code, DEFAULT) == code


def test_expected_values_and_central_differences_serve_the_contract() -> None:
    exercise = COURSE.load("value-mul")
    expected = expected_values(exercise, draw_inputs(exercise, 3), seed=3)
    assert all(e.disagreements == () for e in expected)
    first = expected[0].observations
    assert isinstance(first, dict) and isinstance(first["out.data"], Number)


def _spec(tmp_path: Path, contract: str, defines: str = "{Value: class}", engine: str = "scalar") -> Path:
    folder = tmp_path / "ex"
    folder.mkdir()
    (folder / "starter.py").write_text("# exercise: ex\n")
    (folder / "solution.py").write_text("# exercise: ex\n")
    (folder / "exercise.yaml").write_text(
        f"id: ex\ntitle: t\npoints: 1\nengine: {engine}\n{contract}\ndefines: {defines}\nprobes:\n"
        f"  - name: p\n    points: 1\n    code: x = Value(1.5)\n    observe: [x.data]\n")
    return folder / "exercise.yaml"


@pytest.mark.parametrize(("contract", "defines", "engine", "says"), [
    ("contract: {class: Value, vlaue: data}", "{Value: class}", "scalar", "line 5: contract: unknown field 'vlaue'"),
    ("contract: {class: Value, value: data}", "{Node: class}", "scalar", "line 5: contract.class: is 'Value', but"),
    ("contract: {class: Value, value: grad}", "{Value: class}", "scalar", "contract.value: 'grad' is also"),
    ("contract: {class: Value, value: relu}", "{Value: class}", "scalar", "contract.value: 'relu' is already"),
    ("contract: {class: Value, value: data}", "{Value: class}", "torch", "contract: is for engine: scalar"),
])
def test_a_contract_the_engines_cannot_serve_is_a_spec_error_naming_file_and_line(
        tmp_path: Path, contract: str, defines: str, engine: str, says: str) -> None:
    path = _spec(tmp_path, contract, defines, engine)
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    assert str(raised.value).startswith(str(path)) and says in str(raised.value), str(raised.value)


def test_a_contract_the_engines_can_serve_loads(tmp_path: Path) -> None:
    exercise = load_exercise(_spec(tmp_path, "contract: {class: Value, value: data}"))
    assert exercise.contract == MICROGRAD
