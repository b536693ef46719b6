"""Naming the mistake: on an independent buggy set, on combined mistakes, and in every report format.

submissions/mistakes/ holds buggy submissions written without sight of the exercises' mutants or of
the diagnosis code; each says beside it which mistake names or patterns are right for it (`mistake`).
The set is graded the way an instructor would, with `grade batch`, and the outcome is printed:
how many get a right name, a right pattern, nothing, or a wrong name.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from grader.cli import main
from grader.core.values import ErrorInfo, Where
from grader.judge.diagnose.named_errors import named_by_error
from grader.judge.names import Definitions, definitions
from grader.outputs.render_json import report_schema
from grader.run.read.load import SourceCell

ROOT = Path(__file__).resolve().parent.parent
MISTAKES = ROOT / "submissions" / "mistakes"


def named(report: dict[str, Any]) -> dict[str, str]:
    """The mistakes a report names (known mistakes, localized rules, patterns), with their kind.

    A diagnosis that puts the fault in one rule is named as the manifest of the corpus writes it, how@rule
    (accumulation@__mul__): the rule is part of the claim.
    """
    return {_name(c["diagnosis"]): c["diagnosis"]["kind"] for e in report["exercises"] for c in e["checks"]
            if c.get("diagnosis") and c["diagnosis"]["kind"] != "unknown"}


def _name(diagnosis: dict[str, Any]) -> str:
    rule = diagnosis.get("rule")
    return f"{rule['how']}@{rule['method']}" if rule and diagnosis["kind"] != "known-mistake" else diagnosis["mistake"]


def outcome(found: dict[str, str], right: list[str]) -> str:
    """right-name, right-pattern, nothing or wrong: a diagnosis that names anything not right is wrong."""
    if not found:
        return "nothing"
    if set(found) - set(right):
        return "wrong"
    return "right-name" if {"known-mistake", "localized"} & set(found.values()) else "right-pattern"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = tmp_path_factory.mktemp("mistakes")
    assert main(["batch", str(MISTAKES), "--out", str(out)]) == 0
    return {p.parent.name: json.loads(p.read_text(encoding="utf-8")) for p in (out / "students").glob("*/report.json")}


@pytest.mark.slow
def test_the_independent_buggy_set_gets_right_names_and_never_a_wrong_one(
        graded: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> None:
    expectations = {p.name.removesuffix(".expect.yaml"): yaml.safe_load(p.read_text(encoding="utf-8"))
                    for p in MISTAKES.glob("*.expect.yaml")}
    assert len(expectations) >= 40 and set(graded) == set(expectations)
    rows = []
    for stem, expect in sorted(expectations.items()):
        right = expect["mistake"]
        assert isinstance(right, list) and right, f"{stem}: `mistake` lists the right names"
        found = named(graded[stem])
        rows.append((stem, outcome(found, right), sorted(found), right))
    tally = Counter(row[1] for row in rows)
    with capsys.disabled():
        print(f"\nindependent buggy set: {len(rows)} submissions")
        for stem, result, found, right in rows:
            print(f"  {result:13} {stem:55} named {', '.join(found) or '-'}  (right: {', '.join(right)})")
        kinds = ("right-name", "right-pattern", "nothing", "wrong")
        print("  " + ", ".join(f"{kind}: {tally[kind]}" for kind in kinds))
    assert [row for row in rows if row[1] == "wrong"] == []
    assert (tally["right-name"] + tally["right-pattern"]) / len(rows) >= 0.8


def _graded(tmp_path: Path, source: str) -> tuple[list[dict[str, Any]], str]:
    path = tmp_path / "two_mistakes.py"
    path.write_text(source, encoding="utf-8")
    report_file, text_file = tmp_path / "report.json", tmp_path / "report.txt"
    assert main([str(path), "--exercise", "node-mul", "--format", "json", "--output", str(report_file)]) == 1
    main([str(path), "--exercise", "node-mul", "--color", "never", "--output", str(text_file)])
    report = json.loads(report_file.read_text(encoding="utf-8"))
    return [c["diagnosis"] for c in report["exercises"][0]["checks"] if c.get("diagnosis")], \
        text_file.read_text(encoding="utf-8")


def test_combined_mistakes_are_each_named_where_their_own_rule_is_at_fault(tmp_path: Path) -> None:
    # swapped local slopes in __mul__ and a sum whose slopes are (1, -1): the product's checks fit a known
    # mistake; the sum's fit no mutant of node-mul, but run alone the sum shows its second slope negated
    source = (ROOT / "submissions" / "node-mul" / "swapped_slopes.py").read_text(encoding="utf-8")
    broken_sum = source.replace("(1.0, 1.0)", "(1.0, -1.0)", 1)
    assert broken_sum != source
    diagnoses, text = _graded(tmp_path, broken_sum)
    assert "swapped-locals" in {d["mistake"] for d in diagnoses}
    rules = {(d["rule"]["method"], d["rule"]["operand"], d["rule"]["how"]) for d in diagnoses if d.get("rule")}
    assert ("__add__", "other", "negated") in rules
    assert "swapped-locals" in text and "found by running each operation alone" in text


def test_what_nothing_explains_is_said_plainly_and_only_about_checks_with_numbers(tmp_path: Path) -> None:
    # a right product beside a sum that is wrong only for operands above 2.5, which no mutant makes and the
    # operations run alone never meet: the report counts those checks as fitting nothing, rather than guess
    source = (ROOT / "submissions" / "node-mul" / "correct_lesson_style.py").read_text(encoding="utf-8")
    odd_sum = source.replace("(1.0, 1.0)", "(1.0, 1.0 if abs(other.value) < 2.5 else 0.5)", 1)
    assert odd_sum != source
    diagnoses, text = _graded(tmp_path, odd_sum)
    assert diagnoses and {d["kind"] for d in diagnoses} == {"unknown"}
    assert f"{len(diagnoses)} failed check" in text and "fit no known mistake or pattern: compare expected and got " \
        "above" in text


@pytest.fixture(scope="module")
def overwrite_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("overwrite")
    sample = str(ROOT / "submissions" / "node-mul" / "overwrite.py")
    for fmt, name in (("json", "report.json"), ("gradescope", "results.json"), ("junit", "junit.xml")):
        assert main([sample, "--format", fmt, "--output", str(folder / name)]) == 1
    return folder


def test_the_json_report_carries_each_diagnosis_by_its_schema(overwrite_reports: Path) -> None:
    report = json.loads((overwrite_reports / "report.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())
    check = next(c for c in report["exercises"][0]["checks"] if c["name"] == "a node times itself")
    assert check["diagnosis"]["kind"] == "known-mistake"
    assert check["diagnosis"]["mistake"] == "overwrite-not-accumulate"
    assert "+=" in check["diagnosis"]["hint"] and check["diagnosis"]["evidence"]
    assert all(c.get("diagnosis") is None for c in report["exercises"][0]["checks"] if c["status"] == "passed")


def test_gradescope_and_junit_show_the_diagnosis(overwrite_reports: Path) -> None:
    results = json.loads((overwrite_reports / "results.json").read_text(encoding="utf-8"))
    test = next(t for t in results["tests"] if "a node times itself" in t["name"])
    assert "overwrite-not-accumulate" in test["output"] and "+=" in test["output"]
    suite = ET.parse(overwrite_reports / "junit.xml").getroot()
    case = next(c for c in suite.iter("testcase") if "a node times itself" in c.get("name", ""))
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties.get("mistake") == "overwrite-not-accumulate"
    failure = case.find("failure")
    assert failure is not None and "overwrite-not-accumulate" in (failure.text or "") + failure.get("message", "")


# ------------------------------------------------------------------------------------------------
# What misled before: each hint checks what it is about, weak evidence names nothing by itself


def _defined(source: str) -> Definitions:
    return definitions([SourceCell("hw.py", source)])


ENGINE = "class Value:\n    def __add__(self, o): ...\n    def __mul__(self, o): ...\n    def __radd__(self, o): ...\n"


@pytest.mark.parametrize(("message", "mistake", "method"), [
    ("unsupported operand type(s) for -: 'Value' and 'Value'", "missing-method", "__sub__"),
    ("unsupported operand type(s) for -: 'Value' and 'float'", "missing-method", "__sub__"),
    ("unsupported operand type(s) for -: 'float' and 'Value'", "missing-reflected-operator", "__rsub__"),
    ("unsupported operand type(s) for ** or pow(): 'Value' and 'int'", "missing-method", "__pow__"),
])
def test_an_operator_error_names_the_method_the_class_lacks(message: str, mistake: str, method: str) -> None:
    found = named_by_error(ErrorInfo("TypeError", message), _defined(ENGINE))
    assert found is not None and found.mistake == mistake
    assert found.rule is not None and (found.rule.method, found.rule.how) == (method, "missing")


@pytest.mark.parametrize(("source", "message"), [
    (ENGINE, "unsupported operand type(s) for +: 'float' and 'Value'"),  # it has __radd__: something else is wrong
    (ENGINE.replace("class Value:", "class Value(Base):"), "unsupported operand type(s) for -: 'Value' and 'Value'"),
    (ENGINE, "unsupported operand type(s) for -: 'str' and 'Value'"),  # not a plain number on the left
    (ENGINE, "unsupported operand type(s) for -: 'Tensor' and 'Tensor'"),  # not the student's class
])
def test_an_operator_error_the_syntax_tree_does_not_confirm_names_nothing(source: str, message: str) -> None:
    assert named_by_error(ErrorInfo("TypeError", message), _defined(source)) is None


def test_a_missing_method_is_named_missing() -> None:
    found = named_by_error(ErrorInfo("AttributeError", "'Value' object has no attribute 'sigmoid'"), _defined(ENGINE))
    assert found is not None and found.mistake == "missing-method" and "has no sigmoid()" in found.hint
    # an attribute of the contract (.value on micrograd's .data class) is not a method to add
    assert named_by_error(ErrorInfo("AttributeError", "'Value' object has no attribute 'value'"),
                          _defined(ENGINE)) is None


def test_a_sigmoid_with_its_sign_flipped_is_not_called_unstable(tmp_path: Path) -> None:
    # s = 1 / (1 + exp(x)) overflows at +800 like an unstable sigmoid, but its values are wrong everywhere:
    # the overflow is not the mistake, the rule is
    source = (ROOT / "exercises" / "node-sigmoid" / "solution.py").read_text(encoding="utf-8")
    flipped = source.replace("s = 1 / (1 + math.exp(-self.value))", "s = 1 / (1 + math.exp(self.value))", 1) \
        .replace("s = e / (1 + e)", "s = 1 / (1 + e)", 1)
    assert flipped != source
    path = tmp_path / "flipped.py"
    path.write_text(flipped, encoding="utf-8")
    report_file = tmp_path / "report.json"
    assert main([str(path), "--format", "json", "--output", str(report_file)]) == 1
    diagnoses = [c["diagnosis"] for c in json.loads(report_file.read_text())["exercises"][0]["checks"]
                 if c.get("diagnosis")]
    assert "unstable-forward" not in {d["mistake"] for d in diagnoses}
    assert {d["rule"]["method"] for d in diagnoses if d.get("rule")} == {"sigmoid"}


@pytest.mark.slow
def test_gradcheck_text_is_no_evidence_for_a_mistake(tmp_path: Path) -> None:
    # a backward wrong in a way no mutant is: every wrong backward fails gradcheck with the same text,
    # which must not name ignores-grad-output or any other mutant
    source = (ROOT / "exercises" / "custom-sigmoid" / "solution.py").read_text(encoding="utf-8")
    odd = source.replace("return grad_output * s * (1 - s)", "return grad_output * s * s", 1)
    assert odd != source
    path = tmp_path / "odd.py"
    path.write_text(odd, encoding="utf-8")
    report_file = tmp_path / "report.json"
    assert main([str(path), "--device", "cpu", "--format", "json", "--output", str(report_file)]) == 1
    checks = json.loads(report_file.read_text())["exercises"][0]["checks"]
    gradcheck = next(c for c in checks if c["name"] == "gradcheck in float64")
    assert gradcheck["status"] == "failed" and gradcheck["diagnosis"]["kind"] == "unknown"
    assert not {c["diagnosis"]["mistake"] for c in checks if c.get("diagnosis")} & \
        {"ignores-grad-output", "slope-missing-factor", "slope-from-input"}


@pytest.mark.slow
def test_the_untouched_detach_fix_starter_is_not_named_as_a_mutant_it_does_not_resemble(tmp_path: Path) -> None:
    # the starter's t.numpy() raises what the clone-is-not-detach mutant's t.clone().numpy() raises,
    # but it calls no clone(): the error alone names nothing the code does not do
    report_file = tmp_path / "report.json"
    assert main([str(ROOT / "exercises" / "detach-fix" / "starter.py"), "--device", "cpu", "--format", "json",
                 "--output", str(report_file)]) == 1
    names = {c["diagnosis"]["mistake"] for c in json.loads(report_file.read_text())["exercises"][0]["checks"]
             if c.get("diagnosis")}
    assert "clone-is-not-detach" not in names and "numpy-needs-detach" in names


# ------------------------------------------------------------------------------------------------
# Errors that state their cause, read against the syntax tree and the place they were raised


HALF_DONE = '''class Value:
    def __init__(self, data, _children=()):
        self.data, self.grad, self._prev = data, 0.0, set(_children)

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other))

        def _backward():
            raise NotImplementedError

        out._backward = _backward
        return out

    def __add__(self, other):
        pass

    def __pow__(self, n):
        out = Value(self.data ** n, (self, n))
        return out

    def backward(self):
        def build(v):
            for child in v._prev:
                build(child)
        build(self)
'''


def _raised(type_name: str, message: str, function: str, line: int) -> ErrorInfo:
    return ErrorInfo(type_name, message, Where(line, function, "", "hw.py"))


def test_a_placeholder_is_not_written_yet_and_the_method_it_is_in_is_named() -> None:
    defined = _defined(HALF_DONE)
    inner = named_by_error(_raised("NotImplementedError", "", "_backward", 9), defined)
    assert inner is not None and inner.mistake == "not-written-yet" and "`__mul__` has no backward yet" in inner.hint
    assert inner.rule is not None and (inner.rule.method, inner.rule.how) == ("__mul__", "missing")
    # a None that __add__ returned, where the check calls it: not written yet, never a slope
    none = named_by_error(ErrorInfo("AttributeError", "'NoneType' object has no attribute 'data'"), defined,
                          frozenset({"__add__", "__mul__"}))
    assert none is not None and none.mistake == "not-written-yet" and "`__add__` returns nothing" in none.hint
    assert named_by_error(ErrorInfo("AttributeError", "'NoneType' object has no attribute 'data'"), defined,
                          frozenset({"__mul__"})) is None  # the check does not call __add__: something else
    # a name the file does not define inside a method, as a hostile child could claim: nothing
    assert named_by_error(_raised("NotImplementedError", "", "\x1b[2Jfake", 9), defined) is None


def test_a_number_read_as_a_node_names_where_it_came_from() -> None:
    defined = _defined(HALF_DONE)
    walk = named_by_error(_raised("AttributeError", "'int' object has no attribute '_prev'", "build", 24), defined)
    assert walk is not None and walk.mistake == "number-as-child" and "wrap" not in walk.hint
    unwrapped = named_by_error(_raised("AttributeError", "'float' object has no attribute 'data'", "__mul__", 6),
                               defined)
    assert unwrapped is not None and unwrapped.mistake == "constant-not-wrapped" and "wrapping" in unwrapped.hint
    exponent = named_by_error(_raised("AttributeError", "'int' object has no attribute 'grad'", "__pow__", 19),
                              defined)
    assert exponent is not None and exponent.mistake == "exponent-not-a-node"


def test_a_class_with_other_attribute_names_is_told_which_it_has() -> None:
    found = named_by_error(ErrorInfo("AttributeError", "'Value' object has no attribute 'value'"),
                           _defined(HALF_DONE))
    assert found is not None and found.mistake == "other-attribute-names"
    assert "has no .value" in found.hint and ".data" in found.hint
    misspelt = named_by_error(_raised("AttributeError", "'Value' object has no attribute 'grads'", "backward", 23),
                              _defined(HALF_DONE))
    assert misspelt is not None and misspelt.mistake == "unset-attribute" and ".grad" in misspelt.hint
