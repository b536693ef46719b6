"""Nothing of the hidden run reaches a student before their deadline: not its verdicts, not the
integrity line it may add, not its time. A file that does something noted only in a hidden check's code shape
gets, before the deadline, the very view (every format, byte for byte) of its twin that does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.judge.audience import Audience, redact
from grader.judge.catalog import Catalog
from grader.judge.hidden_runs import HIDDEN_INTEGRITY
from grader.judge.report import Report
from grader.judge.session import grade
from grader.outputs.formats import render
from grader.outputs.render_json import report_from_dict, report_schema, report_to_dict
from grader.outputs.students import Student
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "submissions" / "hostile"
SEED = 4217


@pytest.fixture(scope="module")
def sandbox() -> Any:
    with Sandbox(hide=[ROOT / "exercises"]) as box:
        yield box


def twins(tmp_path: Path, sample: str) -> tuple[Path, Path]:
    """The sample, and the same file with its trigger off (TRIGGER = None: the same length, the same public run)."""
    source = (HOSTILE / sample).read_text()
    assert source.count("TRIGGER = True\n") == 1
    armed, disarmed = tmp_path / "armed" / "work.py", tmp_path / "disarmed" / "work.py"
    for path, text in ((armed, source), (disarmed, source.replace("TRIGGER = True\n", "TRIGGER = None\n"))):
        path.parent.mkdir()
        path.write_text(text)
    return armed, disarmed


def every_format(report: Report) -> str:
    """What a student could read of `report`, in every format, the file's own digest and path aside."""
    student = Student(id="s", name="s", submission="work.py")
    texts = [json.dumps(report_to_dict(report), sort_keys=True)]
    texts += [render(name, report, student=student).decode() for name in ("text", "gradescope", "junit", "feedback")]
    return "\n".join(texts).replace(report.sha256, "SHA").replace(report.submission, "work.py")


@pytest.mark.parametrize(("sample", "exercise"), [("refuses_only_in_the_hidden_shape.py", "node-mul"),
                                                  ("swaps_the_engine_only_in_hidden.py", "control-flow")])
def test_before_the_deadline_the_view_is_the_same_whether_the_hidden_trigger_fires(
        sample: str, exercise: str, sandbox: Any, tmp_path: Path) -> None:
    spec = Catalog(ROOT / "exercises").load(exercise)
    armed, disarmed = (grade(path, [spec], seed=SEED, sandbox=sandbox) for path in twins(tmp_path, sample))
    # the trigger fires, in the hidden run alone: the full report (the instructor's, and the student's after the
    # deadline) says so in the one withheld line, and in no other words
    assert armed.integrity == (HIDDEN_INTEGRITY,) and disarmed.integrity == ()
    assert "out of the grader's sight" not in every_format(armed)
    before = [redact(r, Audience.student(False)) for r in (armed, disarmed)]
    assert every_format(before[0]) == every_format(before[1])
    assert before[0].integrity == () and before[0].seconds == 0.0  # the hidden run's time is withheld too
    after = redact(armed, Audience.student(True))
    assert after.integrity == (HIDDEN_INTEGRITY,) and after.seconds == armed.seconds


def test_before_the_deadline_a_public_checks_diagnosis_does_not_depend_on_a_hidden_verdict(
        sandbox: Any, tmp_path: Path) -> None:
    spec = Catalog(ROOT / "exercises").load("node-mul")
    right_in_hidden, wrong_everywhere = (grade(path, [spec], seed=SEED, sandbox=sandbox)
                                         for path in twins(tmp_path, "diagnosis_reads_the_hidden_verdict.py"))
    hidden = [[c.status for c in r.exercises[0].checks if c.visibility == "hidden"]
              for r in (right_in_hidden, wrong_everywhere)]
    assert hidden == [["passed"], ["failed"]]  # the twins differ in the hidden run alone
    public = [[(c.status, c.score) for c in r.exercises[0].checks if c.visibility != "hidden"]
              for r in (right_in_hidden, wrong_everywhere)]
    assert public[0] == public[1] and ("failed", 0.0) in public[0]  # and run the public checks alike, failing some
    # as a course server keeps them: the JSON (valid against the schema), read back
    stored = [report_from_dict(json.loads(json.dumps(report_to_dict(r)))) for r in (right_in_hidden, wrong_everywhere)]
    for r in (right_in_hidden, wrong_everywhere):
        jsonschema.validate(report_to_dict(r), report_schema())
    before = [redact(r, Audience.student(False)) for r in stored]
    assert every_format(before[0]) == every_format(before[1])
    assert "public_diagnosis" not in every_format(before[0])
    # the full report weighs the hidden verdict: right in the hidden check, the no-chain-factor mutant (which fails
    # it) no longer fits the whole file, and localization names the rule; the view before the deadline names the
    # mistake as the public checks alone show it, and the one after the deadline shows the full diagnosis
    full = [(c.diagnosis, c.public_diagnosis) for c in stored[0].exercises[0].checks if c.status == "failed"]
    assert full and all(d is not None and p is not None and (d.kind, p.kind) == ("localized", "known-mistake")
                        for d, p in full)
    assert [c.diagnosis for c in before[0].exercises[0].checks] == \
           [c.diagnosis for c in stored[1].exercises[0].checks if c.visibility == "public"]
    after = redact(stored[0], Audience.student(True))
    assert [c.diagnosis for c in after.exercises[0].checks] == [c.diagnosis for c in stored[0].exercises[0].checks]
    assert all(c.public_diagnosis is None for c in after.exercises[0].checks)
