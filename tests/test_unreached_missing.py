"""Methods an engine lacks or has not written that no check reached (grader.judge.diagnose.unreached): named from the
syntax tree where it settles that the class has no such method, or only its placeholder; never where a base, a
decorator, `setattr`, `__getattr__`, an instance attribute, a block of the class body or a tuple assignment may
supply it; never from a hidden check."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.judge.catalog import Catalog
from grader.judge.grading import ExpectedCache, grade_submission
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import ExerciseResult
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Catalog(ROOT / "exercises")
#: the solution of tiny-engine with -, unary -, / and their reflected forms left out
BASE = (ROOT / "submissions" / "tiny-engine" / "no_subtraction_or_division.py").read_text(encoding="utf-8")
RSUB = "    def __rsub__(self, other):\n        return Node(other) + self * -1.0\n"


@pytest.fixture(scope="module")
def grade() -> Iterator[object]:
    expected: ExpectedCache = {}
    mutants: MutantCache = {}
    with Sandbox(lean=True, hide=[CATALOG.root]) as sandbox:
        def graded(text: str, tmp: Path, exercise_id: str = "tiny-engine") -> ExerciseResult:
            path = tmp / "engine.py"
            path.write_text(text, encoding="utf-8")
            return grade_submission(sandbox, load_submission(path), [CATALOG.load(exercise_id)], seed=0,
                                    devices=("cpu",), cache=expected, mutant_cache=mutants).exercises[0]
        yield graded


def _claimed(result: ExerciseResult) -> set[str]:
    return {d.rule.method for d in result.masked if d.mistake == "missing-method" and d.rule is not None}


def _in_class(text: str, member: str) -> str:
    """`member` added at the end of class Node's body."""
    head, tail = text.split("\n    def backward(self):", 1)
    return f"{head}\n{member}\n    def backward(self):{tail}"


def test_a_method_no_check_reached_is_named_with_the_checks_that_call_it(grade: object, tmp_path: Path) -> None:
    result = grade(BASE, tmp_path)  # type: ignore[operator]
    assert _claimed(result) == {"__rsub__", "__rtruediv__"}
    stated = {c.diagnosis.rule.method for c in result.checks if c.diagnosis is not None and c.diagnosis.rule}
    assert stated == {"__sub__", "__truediv__", "__neg__"}  # what the errors say stays on the checks
    (rsub,) = [d for d in result.masked if d.rule is not None and d.rule.method == "__rsub__"]
    assert "'subtraction, both orders'" in rsub.hint and rsub.evidence.startswith("the syntax tree")
    # written, it is no longer named
    assert _claimed(grade(_in_class(BASE, RSUB), tmp_path)) == {"__rtruediv__"}  # type: ignore[operator]


def test_a_placeholder_no_check_reached_is_not_written_yet(grade: object, tmp_path: Path) -> None:
    placeholder = "    def __rsub__(self, other):\n        raise NotImplementedError('TODO: __rsub__')\n"
    result = grade(_in_class(BASE, placeholder), tmp_path)  # type: ignore[operator]
    (rsub,) = [d for d in result.masked if d.rule is not None and d.rule.method == "__rsub__"]
    assert rsub.mistake == "not-written-yet" and "Node.__rsub__ (k - x) is not written yet" in rsub.hint
    assert _claimed(result) == {"__rtruediv__"}
    # replaced after the class, it is written
    replaced = _in_class(BASE, placeholder) + "\nNode.__rsub__ = lambda self, other: Node(other) + self * -1.0\n"
    result = grade(replaced, tmp_path)  # type: ignore[operator]
    assert not [d for d in result.masked if d.rule is not None and d.rule.method == "__rsub__"]


SUPPLIED = {
    "a tuple assignment in the class body": ("class", "    __rsub__, __rtruediv__ = (lambda s, o: Node(o) + s * -1.0,"
                                                       " lambda s, o: Node(o) * s ** -1)\n"),
    "a def under an if in the class body": ("class", "    if True:\n" + RSUB.replace("    ", "        ", 1)
                                            .replace("\n        return", "\n            return")
                                            + "        def __rtruediv__(self, other):\n"
                                              "            return Node(other) * self ** -1\n"),
    "setattr after the class": ("end", "for _name in ('__rsub__', '__rtruediv__'):\n"
                                       "    setattr(Node, _name, lambda s, o: Node(o) + s * -1.0)\n"),
    "__getattr__": ("class", "    def __getattr__(self, name):\n        raise AttributeError(name)\n"),
    "locals() in the class body": ("class", "    locals()['__rsub__'] = lambda s, o: Node(o) + s * -1.0\n"),
    "an assignment in a function": ("end", "def patch(cls):\n    cls.__rsub__ = lambda s, o: cls(o) + s * -1.0\n"
                                           "    cls.__rtruediv__ = lambda s, o: cls(o) * s ** -1\n\n\npatch(Node)\n"),
    "a base class": ("base", "class Reflected:\n" + RSUB + "    def __rtruediv__(self, other):\n"
                                                            "        return Node(other) * self ** -1\n\n\n"),
    "a class decorator": ("decorator", "def reflected(cls):\n    return cls\n\n\n"),
}


@pytest.mark.parametrize("case", sorted(SUPPLIED))
def test_nothing_is_claimed_where_the_method_may_come_from_elsewhere(grade: object, tmp_path: Path,
                                                                    case: str) -> None:
    where, text = SUPPLIED[case]
    if where == "class":
        source = _in_class(BASE, text)
    elif where == "end":
        source = BASE + "\n" + text
    else:
        head, tail = BASE.split("\nclass Node:", 1)
        source = f"{head}\n{text}class Node(Reflected):{tail}" if where == "base" else \
            f"{head}\n{text}@reflected\nclass Node:{tail}"
    result = grade(source, tmp_path)  # type: ignore[operator]
    assert _claimed(result) == set(), case


def test_a_hidden_checks_calls_are_not_told(tmp_path: Path) -> None:
    """With 'division, both orders' hidden too, only hidden checks call k / x: that __rtruediv__ is missing would say
    what their code does before their results are released, so it is not named."""
    shipped = CATALOG.load("tiny-engine")
    hidden = dataclasses.replace(shipped, probes=tuple(
        dataclasses.replace(p, visibility="hidden") if p.name == "division, both orders" else p
        for p in shipped.probes))
    path = tmp_path / "engine.py"
    path.write_text(BASE, encoding="utf-8")
    with Sandbox(lean=True, hide=[CATALOG.root]) as sandbox:
        shown, kept = (grade_submission(sandbox, load_submission(path), [exercise], seed=0, devices=("cpu",)
                                        ).exercises[0] for exercise in (shipped, hidden))
    assert "__rtruediv__" in _claimed(shown)
    assert _claimed(kept) == {"__rsub__"}


def test_a_long_class_name_is_quoted_short(grade: object, tmp_path: Path) -> None:
    long = "N" + "o" * 85 + "de"  # past the hint's 60 characters, within the 100 of Python's own messages
    source = BASE.replace("class Node:", f"class {long}:") + f"\nNode = {long}\n"
    result = grade(source.replace("Node(", f"{long}("), tmp_path)  # type: ignore[operator]
    assert _claimed(result) == {"__rsub__", "__rtruediv__"}
    assert all(long not in d.hint and long[:57] + "..." in d.hint for d in result.masked)
