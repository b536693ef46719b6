"""Whole engines with exactly one wrong rule, written blind: the report names that rule, not its symptoms.

submissions/whole-engine/ holds tiny-engine submissions, each with one wrong rule and its truth beside
it (`truth: {rule, operand, how}`), written without sight of the localization code. Each is graded
through one sandbox; a case counts as named when some failed check's diagnosis carries that rule
(its method), and the outcome is printed with how and operand. At least 9 in 10 must be named, and
no case may have another rule blamed instead of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.judge.catalog import Catalog
from grader.judge.grading import ExpectedCache, grade_submission
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import ExerciseResult, RuleFault
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "submissions" / "whole-engine"
CATALOG = Catalog(ROOT / "exercises")


def cases() -> dict[str, dict[str, Any]]:
    return {p.name.removesuffix(".expect.yaml"): yaml.safe_load(p.read_text(encoding="utf-8"))
            for p in sorted(CASES.glob("*.expect.yaml"))}


def rules(result: ExerciseResult) -> list[RuleFault]:
    return [c.diagnosis.rule for c in result.checks if c.diagnosis is not None and c.diagnosis.rule is not None]


@pytest.fixture(scope="module")
def graded() -> dict[str, ExerciseResult]:
    expected: ExpectedCache = {}
    mutants: MutantCache = {}
    results = {}
    with Sandbox(lean=True, hide=[ROOT / "exercises"]) as sandbox:
        for stem, expect in cases().items():
            graded = grade_submission(sandbox, load_submission(CASES / f"{stem}.py"),
                                      [CATALOG.load(expect["exercise"])], seed=0, devices=("cpu",),
                                      cache=expected, mutant_cache=mutants)
            results[stem] = graded.exercises[0]
    return results


@pytest.mark.slow
def test_one_wrong_rule_in_a_whole_engine_gets_that_rule_named(
        graded: dict[str, ExerciseResult], capsys: pytest.CaptureFixture[str]) -> None:
    all_cases = cases()
    assert len(all_cases) >= 10
    named, agreeing, elsewhere = [], [], []
    with capsys.disabled():
        print(f"\nwhole engines, one wrong rule each: {len(all_cases)}")
        for stem, expect in all_cases.items():
            truth = expect["truth"]
            found = rules(graded[stem])
            methods = {r.method for r in found}
            hit = truth["rule"] in methods
            named += [stem] if hit else []
            agreeing += [stem] if any(r.method == truth["rule"] and r.how == truth["how"] for r in found) else []
            elsewhere += [f"{stem}: {sorted(methods - {truth['rule']})}"] if methods - {truth["rule"]} else []
            shown = ", ".join(sorted({f"{r.how}@{r.method}" for r in found})) or "-"
            print(f"  {'named' if hit else 'MISSED':6} {stem:28} truth {truth['how']}@{truth['rule']:14} found {shown}")
        print(f"  rule named in {len(named)} of {len(all_cases)}, with the same how in {len(agreeing)}")
    assert len(named) / len(all_cases) >= 0.9
    assert elsewhere == [], "another rule blamed beside the wrong one"
