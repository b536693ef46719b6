"""Names right on the code a student hands in: each mistake by its own cause, the ones behind it too.

A method hidden by an instance attribute is its own cause, not a missing seed, and so is a backward()
left as a placeholder (not written yet); a check that reads values alone names the wrong value, not a
slope; a function left at the starter's None is not written yet; an error names a mistake where the
syntax tree places it; and where one mistake (a missing seed) hides the others from every check,
localization seeds the output itself, or calls each operation's own step, and names each of them with
its own evidence. The engines are shipped samples and corpus files with the mistakes each test names put
in.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.judge.catalog import Catalog
from grader.judge.grading import grade_submission
from grader.judge.report import ExerciseResult
from grader.judge.uses import allowed, probe_uses, with_number
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
COURSE = Catalog(ROOT / "exercises")
MICROGRAD = Catalog(ROOT / "examples" / "courses" / "micrograd")

#: the whole-engine sample whose only mistake is the missing seed, and that seed put back: a right engine
SEEDED = ("        build_topo(self)\n\n        for v in reversed(topo):",
          "        build_topo(self)\n        self.grad = 1.0\n        for v in reversed(topo):")
UNSEEDED = (ROOT / "submissions" / "whole-engine" / "backward_no_seed.py").read_text(encoding="utf-8")


def changed(*edits: tuple[str, str], seeded: bool = True) -> str:
    source = UNSEEDED
    for old, new in ((SEEDED,) if seeded else ()) + edits:
        assert old in source, old
        source = source.replace(old, new)
    return source


ADD_OVERWRITES = ("            self.grad += out.grad\n            other.grad += out.grad",
                  "            self.grad = out.grad\n            other.grad = out.grad")
POW_WITHOUT_N = ("self.grad += (other * self.value ** (other - 1)) * out.grad",
                 "self.grad += (self.value ** (other - 1)) * out.grad")
HIDDEN_BACKWARD = ("        self._backward = lambda: None\n",
                   "        self._backward = lambda: None\n        self.backward = lambda: None\n")


@pytest.fixture(scope="module")
def grade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("hidden")
    with Sandbox(lean=True, hide=[ROOT / "exercises"]) as sandbox:
        def graded(source: str, exercise_id: str, catalog: Catalog = COURSE) -> ExerciseResult:
            path = folder / f"engine_{abs(hash((source, exercise_id)))}.py"
            path.write_text(source, encoding="utf-8")
            result = grade_submission(sandbox, load_submission(path), [catalog.load(exercise_id)], seed=0,
                                      devices=("cpu",))
            return result.exercises[0]
        yield graded


def test_the_engine_these_tests_change_is_right(grade: Any) -> None:
    result = grade(changed(), "tiny-engine")
    assert result.score == result.max_score


def names(result: ExerciseResult) -> set[str]:
    return {c.diagnosis.mistake for c in result.checks if c.diagnosis is not None and c.diagnosis.kind != "unknown"}


def test_a_method_an_instance_attribute_hides_is_named_not_a_missing_seed(grade: Any) -> None:
    result = grade(changed(HIDDEN_BACKWARD), "node-backward")
    failed = [c for c in result.checks if c.status in ("failed", "error")]
    assert failed and all(c.diagnosis is not None and c.diagnosis.mistake == "shadowed-method" for c in failed)
    hint = failed[0].diagnosis.hint  # type: ignore[union-attr]
    assert "self.backward" in hint and "never your def backward" in hint and "self.grad = 1.0" not in hint


def test_a_check_that_reads_values_alone_names_the_value_not_a_slope(grade: Any) -> None:
    result = grade(changed(("Node(0.0 if self.value < 0 else self.value, (self,), 'ReLU')",
                            "Node(math.tanh(self.value), (self,), 'ReLU')")), "node-relu")
    values = next(c for c in result.checks if c.name == "relu values")
    assert values.status == "failed" and values.diagnosis is not None
    assert values.diagnosis.mistake == "wrong-forward-value" and values.diagnosis.rule is not None
    assert values.diagnosis.rule.how == "wrong-value" and "slope" not in values.diagnosis.hint.split(".")[0]
    assert "max(x, 0)" in values.diagnosis.hint


def test_every_mistake_a_missing_seed_hides_is_named_with_its_own_evidence(grade: Any) -> None:
    result = grade(changed(ADD_OVERWRITES, POW_WITHOUT_N, seeded=False), "tiny-engine")
    assert names(result) <= {"output-seed", "output-not-seeded"} and names(result)
    hidden = {(d.rule.method, d.rule.how): d for d in result.masked if d.rule is not None}
    assert set(hidden) == {("__add__", "accumulation"), ("__pow__", "missing-coefficient")}
    assert "x + x at x = " in hidden["__add__", "accumulation"].evidence
    assert "x ** n at x = " in hidden["__pow__", "missing-coefficient"].evidence
    assert all("out.grad = 1.0 set before out.backward()" in d.evidence for d in result.masked)
    # with the seed mended, the two are what the checks show
    mended = grade(changed(ADD_OVERWRITES, POW_WITHOUT_N), "tiny-engine")
    rules = {(c.diagnosis.rule.method, c.diagnosis.rule.how) for c in mended.checks
             if c.diagnosis is not None and c.diagnosis.rule is not None}
    assert set(hidden) <= rules and not mended.masked


#: backward() left as a starter hands it out: a body of `pass` (corpus/hjoonkwon-7410e9e.py, a student's commit)
UNWRITTEN_BACKWARD = ("""    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)

        for v in reversed(topo):
            v._backward()
""", """    def backward(self):
        \"\"\"Fill in the gradient of every node self was made from.\"\"\"
        pass
""")


def test_a_backward_left_as_a_placeholder_is_not_written_yet_not_a_missing_seed(grade: Any) -> None:
    result = grade(changed(UNWRITTEN_BACKWARD, seeded=False), "node-backward")
    failed = [c for c in result.checks if c.status in ("failed", "error")]
    assert failed and all(c.diagnosis is not None and c.diagnosis.mistake == "not-written-yet" for c in failed)
    rules = {(c.diagnosis.rule.method, c.diagnosis.rule.how) for c in failed if c.diagnosis and c.diagnosis.rule}
    assert rules == {("backward", "missing")}
    assert "`Node.backward()` is not written yet" in failed[0].diagnosis.hint  # type: ignore[union-attr]
    # the same engine with a written backward() after the class, or a class defined again with one, is not flagged
    written = changed(UNWRITTEN_BACKWARD, seeded=False) + "\n\ndef _walk(self):\n    self.grad = 1.0\n" \
        "    order, seen = [], set()\n\n    def visit(v):\n        if v not in seen:\n            seen.add(v)\n" \
        "            for child in v._prev:\n                visit(child)\n            order.append(v)\n" \
        "    visit(self)\n    for v in reversed(order):\n        v._backward()\n\n\nNode.backward = _walk\n"
    again = grade(written, "node-backward")
    assert again.score == again.max_score


def test_the_operations_a_hidden_backward_never_runs_are_read_by_their_own_steps(grade: Any) -> None:
    source = changed(HIDDEN_BACKWARD, ("            self.grad += out.grad\n            other.grad += out.grad",
                                       "            self.grad += out.grad\n            other.grad -= out.grad"))
    result = grade(source, "node-add")
    assert names(result) == {"shadowed-method"}
    (hidden,) = result.masked
    assert hidden.rule is not None and (hidden.rule.method, hidden.rule.how) == ("__add__", "negated")
    assert "each node's own _backward() called, without backward()" in hidden.evidence


def test_a_function_left_at_the_starters_none_is_not_written_yet(grade: Any) -> None:
    starter = (ROOT / "corpus" / "tensor" / "cs231n-atry-layers.py").read_text(encoding="utf-8")
    result = grade(starter, "layer-backward")
    failed = [c for c in result.checks if c.status in ("failed", "error")]
    assert failed and {c.diagnosis.mistake for c in failed if c.diagnosis} == {"not-written-yet"}
    forward = next(c for c in result.checks if c.name == "batch norm forward")
    assert forward.diagnosis is not None and "`batchnorm_forward` is not written yet" in forward.diagnosis.hint


@pytest.mark.parametrize(("mutant", "exercise_id"), [("sum_not_expanded.py", "tensor-reduce"),
                                                     ("keepdims_expanded_again.py", "tensor-reduce"),
                                                     ("not_reversed.py", "tensor-backward")])
def test_a_mistake_that_raises_is_named_where_the_syntax_tree_places_it(grade: Any, mutant: str,
                                                                       exercise_id: str) -> None:
    # a student's file with the mutant's mistake, graded as the student's (no mutant's values are compared)
    exercise = COURSE.load(exercise_id)
    path = exercise.folder / "mutants" / mutant
    mistake = next(line.split(":", 1)[1].strip() for line in path.read_text(encoding="utf-8").splitlines()
                   if line.startswith("mistake:"))
    result = grade(path.read_text(encoding="utf-8"), exercise_id)
    raised = [c for c in result.checks if c.status == "error" and c.visibility == "public"]
    assert raised and names(result) == {mistake}
    assert all(c.diagnosis.evidence.startswith("the code raised") for c in raised
               if c.diagnosis is not None and c.diagnosis.kind != "unknown")


def test_a_probe_gives_a_plain_number_only_to_an_operation_its_exercise_teaches(grade: Any) -> None:
    # micrograd's own engine, its + and * made early ones that take only nodes: value-backward teaches backward(),
    # and every operation is given
    early = (ROOT / "corpus" / "micrograd-5bb6392.py").read_text(encoding="utf-8").replace(
        "        other = other if isinstance(other, Value) else Value(other)\n        out = Value(self.data ",
        "        out = Value(self.data ")
    assert early.count("isinstance(other, Value)") == 0
    result = grade(early, "value-backward", MICROGRAD)
    assert result.score == result.max_score
    exercise = MICROGRAD.load("value-backward")
    assert with_number("__mul__") not in allowed(exercise)  # what validate holds every probe to
    assert all(probe_uses(exercise, probe) <= allowed(exercise) for probe in exercise.probes)
    assert with_number("__mul__") in allowed(COURSE.load("node-mul"))  # where * is what is taught


def test_a_name_from_the_syntax_tree_is_quoted_cut_to_a_line(grade: Any) -> None:
    # an identifier has no length limit: a hint quotes the class's name cut short, not 20,000 characters per check
    long = "N" + "o" * 20_000 + "de"
    source = changed(HIDDEN_BACKWARD).replace("class Node:", f"class {long}:").replace("Node(", f"{long}(")
    result = grade(source + f"\nNode = {long}\n", "node-add")
    hints = [c.diagnosis.hint for c in result.checks if c.diagnosis is not None and c.diagnosis.kind != "unknown"]
    assert hints and all(len(hint) < 1_000 for hint in hints)
    assert names(result) == {"shadowed-method"}
