"""Every sample under submissions/ grades to the outcome written beside it, through the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from grader.cli import main
from grader.core.errors import GraderError
from grader.judge.catalog import Catalog
from grader.judge.report import Report
from grader.outputs import formats
from grader.outputs.formats import Format, render
from grader.outputs.render_json import report_schema
from grader.run.read.load import load_submission

ROOT = Path(__file__).resolve().parent.parent
#: a file each, or a folder (one student's files, graded as `grade FOLDER`) with its .expect.yaml beside it
SAMPLES = sorted([*(ROOT / "submissions").glob("*/*.py"), *(ROOT / "submissions").glob("*/*.ipynb"),
                  *(p for p in (ROOT / "submissions").glob("*/*/") if p.with_suffix(".expect.yaml").is_file())])
#: outcome and saved_as_latin1 are read by tests/test_hostile.py's batch
ALLOWED = {"about", "exercise", "assignment", "args", "exit_code", "score", "statuses", "report_contains", "mistake",
           "error_contains", "requires", "truth", "outcome", "saved_as_latin1", "report_lacks", "max_report_bytes",
           "slow", "exercises"}
CATALOG = Catalog(ROOT / "exercises")


def _expectation(sample: Path) -> dict[str, Any]:
    path = sample.with_suffix(".expect.yaml")
    assert path.is_file(), f"{sample} has no {path.name} saying what grading it must give"
    expect = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert set(expect) <= ALLOWED, f"{path}: unknown keys {set(expect) - ALLOWED}"
    needed = {"about", "exit_code"} | ({"error_contains"} if expect.get("exit_code") == 2 else {"score"})
    assert needed <= set(expect), f"{path}: needs {', '.join(sorted(needed))}"
    return expect


def _arguments(sample: Path, expect: dict[str, Any]) -> list[str]:
    which = ["--exercise", expect["exercise"]] if "exercise" in expect else \
        ["--assignment", expect["assignment"]] if "assignment" in expect else []  # else: the file names it
    # another catalog than exercises/ (a library course's, under examples/courses), by its path in the repository
    catalog = ["--exercises", str(ROOT / expect["exercises"])] if "exercises" in expect else []
    return [str(sample), *which, *catalog, *map(str, expect.get("args", []))]


def _slow(sample: Path) -> bool:
    """A sample whose grading takes seconds: one graded as a torch exercise (a torch zygote starts, and its mistakes
    run training loops), one that runs out of a time limit of its own, or one its expectation says is slow."""
    expect = yaml.safe_load(sample.with_suffix(".expect.yaml").read_text(encoding="utf-8")) or {}
    if expect.get("slow") or "--time-limit" in map(str, expect.get("args", [])):
        return True
    if "exercises" in expect:  # a library course: numpy, and every exercise of it
        return False
    ids = [expect["exercise"]] if "exercise" in expect else \
        CATALOG.load_assignment(expect["assignment"])[1] if "assignment" in expect else _declared(sample)
    return any((CATALOG.load(e) if isinstance(e, str) else e).engine == "torch" for e in ids)


def _declared(sample: Path) -> list[str]:
    if sample.is_dir():
        return []
    try:
        submission = load_submission(sample)
    except GraderError:  # a sample the grader refuses to read is refused at once
        return []
    if submission.declared_exercise in CATALOG.ids():
        return [submission.declared_exercise]
    try:
        return [e.id for e in CATALOG.load_assignment(submission.declared_assignment or "")[1]]
    except GraderError:
        return []


@pytest.mark.parametrize("sample", [pytest.param(s, marks=pytest.mark.slow) if _slow(s) else s for s in SAMPLES],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_sample_grades_as_expected(sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    expect = _expectation(sample)
    if expect.get("requires") == "root" and os.geteuid() != 0:
        pytest.skip("this outcome needs the grader to run as root (the README says what holds otherwise)")
    args = _arguments(sample, expect)
    report_file = tmp_path / "report.json"
    # Graded once, through the real CLI: its JSON is what it writes, and its text report is the same report
    # rendered as `grade FILE` renders it (grading again for the text doubled this file's time, the suite's
    # longest; tests/test_cli.py runs the text path end to end, and test_hostile.py grades a file twenty times)
    rendered: list[tuple[Report, dict[str, Any]]] = []

    def keeping(name: Format, report: Report, **options: Any) -> bytes:
        rendered.append((report, options))
        return render(name, report, **options)

    monkeypatch.setattr(formats, "render", keeping)
    code = main([*args, "--format", "json", "--output", str(report_file)])
    if expect["exit_code"] == 2:  # a problem the user can fix: one line on stderr, no report
        assert code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
        for fragment in expect["error_contains"]:
            assert fragment in err, f"{fragment!r} not in {err!r}"
        assert not report_file.exists()
        return
    if "max_report_bytes" in expect:  # the JSON a huge value makes is its prefix, shape and size
        assert report_file.stat().st_size <= expect["max_report_bytes"], report_file.stat().st_size
    report = json.loads(report_file.read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())
    assert code == expect["exit_code"], report
    assert report["score"] == pytest.approx(expect["score"]), report
    statuses = {c["name"]: c["status"] for e in report["exercises"] for c in e["checks"]}
    for name, status in expect.get("statuses", {}).items():
        assert statuses[name] == status, f"check {name!r}: {statuses[name]} (expected {status})"

    (graded, options), = rendered
    assert graded.exit_code == expect["exit_code"]
    text = render("text", graded, **(options | {"color": False})).decode("utf-8")
    for fragment in expect.get("report_contains", []):
        assert fragment in text, f"{fragment!r} not in the report:\n{text}"
    for fragment in expect.get("report_lacks", []):  # what a hostile sample would show, had it won
        assert fragment not in text, f"{fragment!r} in the report:\n{text}"


def test_every_exercise_has_samples() -> None:
    exercises = {p.parent.name for p in (ROOT / "exercises").glob("*/exercise.yaml")}
    sampled = {p.parent.name for p in SAMPLES}
    assert exercises <= sampled, f"exercises without samples: {sorted(exercises - sampled)}"


def test_every_expectation_has_a_sample() -> None:
    orphans = [p for p in (ROOT / "submissions").glob("*/*.expect.yaml")
               if not any(p.with_name(p.name.replace(".expect.yaml", s)).is_file() for s in (".py", ".ipynb"))
               and not p.with_name(p.name.replace(".expect.yaml", "")).is_dir()]
    assert not orphans
