"""Any number a submission can send (inf, nan, huge, tiny, -0.0, subnormal) is safe in every trusted step.

A student's observations go through checks, ratio patterns, mutant and slip matching, every output
format and the class summary; none of them may raise, and every format must still be valid.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.core.values import Array, Number, Value
from grader.judge.catalog import Catalog
from grader.judge.check import ExerciseRun, check_exercise
from grader.judge.diagnose.evidence import Evidence, Given, MutantRun, OnDemand
from grader.judge.diagnose.passes import diagnose
from grader.judge.diagnose.slips import slip_runs
from grader.judge.oracle import expected_values
from grader.judge.report import Report
from grader.outputs.feedback import feedback_html
from grader.outputs.formats.gradebook import gradebook_csv
from grader.outputs.formats.gradescope import gradescope_results
from grader.outputs.formats.junit import junit_xml
from grader.outputs.formats.lti import lti_score
from grader.outputs.render_json import render_json, report_from_dict, report_schema
from grader.outputs.render_text import render_text
from grader.outputs.students import ExerciseColumn, Student, StudentReport
from grader.outputs.summary import class_summary
from grader.outputs.summary_html import summary_html
from grader.run.inputs import draw_inputs
from grader.run.observed import GroupRun, ProbeRun, RunResult

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Catalog(ROOT / "exercises")
EXTREME = [math.inf, -math.inf, math.nan, 1.7e308, -1.7e308, sys.float_info.max, 5e-324, -5e-324, 0.0, -0.0,
           2.2250738585072014e-308, 1e-300, -1e300, 1.0, -1.0, 0.5, 2.0]
numbers = st.sampled_from(EXTREME) | st.floats(allow_nan=True, allow_infinity=True)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Case:
    """An exercise with its inputs, expected values and slipped engines, made once per exercise."""

    def __init__(self, exercise_id: str) -> None:
        self.exercise = CATALOG.load(exercise_id)
        self.inputs = draw_inputs(self.exercise, 0)
        self.expected = expected_values(self.exercise, self.inputs, torch_engine=False)
        self.slips = slip_runs(self.exercise, self.inputs, 0)


CASES = {name: Case(name) for name in ("node-mul", "tiny-engine", "custom-sigmoid")}


def _like(template: Value, draw: st.DrawFn) -> Value:
    """A value of the expected one's shape (sometimes the wrong shape), filled with extreme numbers."""
    if isinstance(template, Array):
        shape = template.shape if draw(st.booleans()) else (len(template.data) + 1,)
        return Array(shape, tuple(draw(numbers) for _ in range(math.prod(shape))))
    return Number(draw(numbers))


@st.composite
def runs(draw: st.DrawFn, case: Case) -> GroupRun:
    probes = []
    for expected in case.expected:
        wanted = expected.observations
        if isinstance(wanted, dict):
            probes.append(ProbeRun({label: _like(value, draw) for label, value in wanted.items()}, None))
        else:
            probes.append(ProbeRun({}, None))
    return GroupRun(missing=(), probes=tuple(probes), stopped_at=None)


def _run_result(group: GroupRun) -> RunResult:
    return RunResult(kind="python", loaded=True, cell_errors=(), stop=None, stopped_in_cell=None,
                     groups=(group,), output="", output_truncated=False, seconds=0.01)


def _every_format(report: Report) -> None:
    text = render_text(report, color=False)
    assert "Score:" in text
    data = json.loads(render_json(report))
    jsonschema.validate(data, report_schema())
    assert report_from_dict(data).score == report.score
    json.dumps(gradescope_results(report), allow_nan=False)
    junit_xml([("s", report)])
    json.dumps(lti_score(report, "s", datetime.now(UTC)), allow_nan=False)
    row = StudentReport(student=Student(id="s", name="s", submission="s.py"), report=report)
    columns = [ExerciseColumn(e.id, e.title, e.max_score) for e in report.exercises]
    gradebook_csv([row], columns)
    summary = class_summary([row], columns)
    json.dumps(summary, allow_nan=False)
    summary_html(summary)
    feedback_html(report)


def _grade(case: Case, student: GroupRun, mutants: Sequence[MutantRun]) -> Report:
    result = check_exercise(case.exercise, case.inputs, case.expected, {"cpu": ExerciseRun(_run_result(student),
                                                                                           student)})
    result = diagnose(Evidence(exercise=case.exercise, result=result, inputs=case.inputs, expected=case.expected,
                               runs={"cpu": student}, on_demand=OnDemand(Given(mutants, case.slips))))
    return Report(submission="s.py", sha256="0" * 64, seed=0, exercises=(result,), grader_version="test")


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_extreme_numbers_pass_through_checks_diagnosis_and_every_format(exercise_id: str, data: st.DataObject) -> None:
    case = CASES[exercise_id]
    student = data.draw(runs(case))
    # The mutants' own values are extreme too: matching them must not overflow either.
    mutants = [MutantRun(m, data.draw(runs(case))) for m in case.exercise.mutants[:3]]
    _every_format(_grade(case, student, mutants))


@pytest.mark.parametrize("value", [1.7e308, -1.7e308, 5e-324, math.inf, math.nan, -0.0])
def test_one_extreme_gradient_everywhere(value: float) -> None:
    """The same extreme number as every observation: every ratio is extreme or undefined at once."""
    case = CASES["node-mul"]
    student = GroupRun(missing=(), probes=tuple(
        ProbeRun({label: Number(value) for label in e.observations} if isinstance(e.observations, dict) else {}, None)
        for e in case.expected), stopped_at=None)
    report = _grade(case, student, [])
    _every_format(report)
    assert report.score <= 1  # only a check whose every value happens to be right can pass
