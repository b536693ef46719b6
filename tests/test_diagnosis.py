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
from grader.render_json import report_schema

ROOT = Path(__file__).resolve().parent.parent
MISTAKES = ROOT / "submissions" / "mistakes"


def named(report: dict[str, Any]) -> dict[str, str]:
    """The mistakes a report names (known mistakes and patterns), with their kind."""
    return {c["diagnosis"]["mistake"]: c["diagnosis"]["kind"] for e in report["exercises"] for c in e["checks"]
            if c.get("diagnosis") and c["diagnosis"]["kind"] != "unknown"}


def outcome(found: dict[str, str], right: list[str]) -> str:
    """right-name, right-pattern, nothing or wrong: a diagnosis that names anything not right is wrong."""
    if not found:
        return "nothing"
    if set(found) - set(right):
        return "wrong"
    return "right-name" if "known-mistake" in found.values() else "right-pattern"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = tmp_path_factory.mktemp("mistakes")
    assert main(["batch", str(MISTAKES), "--out", str(out)]) == 0
    return {p.parent.name: json.loads(p.read_text(encoding="utf-8")) for p in (out / "students").glob("*/report.json")}


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


def test_combined_mistakes_name_what_they_can_and_say_what_they_could_not(tmp_path: Path) -> None:
    # swapped local slopes in __mul__ and a sum whose slopes are (1, -1): the product's checks fit a known
    # mistake; the sum's failures fit none, and the report says so instead of guessing.
    source = (ROOT / "submissions" / "node-mul" / "swapped_slopes.py").read_text(encoding="utf-8")
    broken_sum = source.replace("(1.0, 1.0)", "(1.0, -1.0)", 1)
    assert broken_sum != source
    path = tmp_path / "two_mistakes.py"
    path.write_text(broken_sum, encoding="utf-8")
    report_file = tmp_path / "report.json"
    assert main([str(path), "--exercise", "node-mul", "--format", "json", "--output", str(report_file)]) == 1
    report = json.loads(report_file.read_text(encoding="utf-8"))
    diagnoses = [c["diagnosis"] for c in report["exercises"][0]["checks"] if c.get("diagnosis")]
    assert "swapped-locals" in {d["mistake"] for d in diagnoses}
    assert "unknown" in {d["kind"] for d in diagnoses}
    text_file = tmp_path / "report.txt"
    main([str(path), "--exercise", "node-mul", "--color", "never", "--output", str(text_file)])
    text = text_file.read_text(encoding="utf-8")
    assert "swapped-locals" in text and "fit no known mistake or pattern" in text


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
