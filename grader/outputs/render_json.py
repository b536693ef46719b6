"""The report as versioned JSON, the form LMS exporters
and CI read (schema: schemas/report.schema.json)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from grader.judge.report import (
    REPORT_VERSION,
    Cause,
    CheckResult,
    Diagnosis,
    ExerciseResult,
    ObservationResult,
    Report,
    RuleFault,
    Trace,
)
from grader.outputs.precision_note import with_precision_note
from grader.outputs.trace_note import with_trace_note
from grader.run.observed import Isolation


def report_to_dict(report: Report) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "grader": {"name": "autograd-grader", "version": report.grader_version},
        "submission": {"path": report.submission, "sha256": report.sha256},
        "seed": report.seed,
        **({"seed_token": report.seed_token} if report.seed_token is not None else {}),
        "score": report.score,
        "max_score": report.max_score,
        "public_score": report.public_score,
        "hidden_points": report.hidden_points,
        "all_passed": report.exit_code == 0,
        "seconds": round(report.seconds, 4),
        "problems": list(report.problems),
        "notes": list(report.notes),
        "output": report.output,
        "output_truncated": report.output_truncated,
        "isolation": None
        if report.isolation is None
        else {
            "level": report.isolation.level,
            "mode": report.isolation.mode,
            "description": report.isolation.description,
            "weaker_limits": list(report.isolation.weaker_limits),
        },
        "integrity": list(report.integrity),
        "exercises": [_exercise(e) for e in report.exercises],
    }


def render_json(report: Report) -> str:
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False) + "\n"


def _exercise(exercise: ExerciseResult) -> dict[str, Any]:
    return {
        "id": exercise.id,
        "title": exercise.title,
        "score": exercise.score,
        "max_score": exercise.max_score,
        "public_score": exercise.public_score,
        "hidden_points": exercise.hidden_points,
        "problems": list(exercise.problems),
        "checks": [_check(c) for c in exercise.checks],
        "masked": [_diagnosis_to_dict(d) for d in exercise.masked],
        **(
            {}
            if exercise.public_masked is None
            else {"public_masked": [_diagnosis_to_dict(d) for d in exercise.public_masked]}
        ),
    }


def _check(check: CheckResult) -> dict[str, Any]:
    return {
        "name": check.name,
        "about": check.about,
        "status": check.status,
        "score": check.score,
        "max_score": check.max_score,
        "message": with_trace_note(with_precision_note(check.message, check), check),
        "problem": check.problem,
        "visibility": check.visibility,
        "inputs": dict(check.inputs),
        "input_values": dict(check.input_values),
        "code": check.code,
        "observations": [
            {
                "label": o.label,
                "expected": o.expected,
                "got": o.got,
                "ok": o.ok,
                "problem": o.problem,
                "expected_value": o.expected_value,
                "got_value": o.got_value,
            }
            for o in check.observations
        ],
        "diagnosis": None if check.diagnosis is None else _diagnosis_to_dict(check.diagnosis),
        "cause": {"kind": check.cause.kind, "detail": check.cause.detail, "line": check.cause.line},
        **(
            {}
            if check.public_diagnosis is None
            else {"public_diagnosis": _diagnosis_to_dict(check.public_diagnosis)}
        ),
        **(
            {}
            if check.traced is None
            else {
                "traced": {
                    "ops": list(check.traced.ops),
                    "how": check.traced.how,
                    "checks": list(check.traced.checks),
                }
            }
        ),
    }


def _diagnosis_to_dict(diagnosis: Diagnosis) -> dict[str, Any]:
    return {
        "kind": diagnosis.kind,
        "mistake": diagnosis.mistake,
        "hint": diagnosis.hint,
        "evidence": diagnosis.evidence,
        **(
            {}
            if diagnosis.rule is None
            else {
                "rule": {
                    "method": diagnosis.rule.method,
                    "operand": diagnosis.rule.operand,
                    "how": diagnosis.rule.how,
                }
            }
        ),
    }


def report_from_dict(data: dict[str, Any]) -> Report:
    """A report read back from `report_to_dict`'s JSON (a batch's per-student report.json)."""
    return Report(
        submission=data["submission"]["path"],
        sha256=data["submission"]["sha256"],
        seed=data["seed"],
        seed_token=data.get("seed_token"),
        grader_version=data["grader"]["version"],
        seconds=data["seconds"],
        problems=tuple(data["problems"]),
        notes=tuple(data["notes"]),
        output=data["output"],
        output_truncated=data["output_truncated"],
        isolation=Isolation(
            **{
                **data["isolation"],
                "weaker_limits": tuple(data["isolation"].get("weaker_limits", ())),
            }
        )
        if data.get("isolation")
        else None,
        integrity=tuple(data.get("integrity", ())),
        exercises=tuple(
            ExerciseResult(
                id=e["id"],
                title=e["title"],
                problems=tuple(e["problems"]),
                hidden_points=e.get("hidden_points", 0.0),
                masked=tuple(_diagnosis(d) for d in e.get("masked", ())),
                public_masked=None
                if e.get("public_masked") is None
                else tuple(_diagnosis(d) for d in e["public_masked"]),
                checks=tuple(
                    CheckResult(
                        name=c["name"],
                        about=c["about"],
                        status=c["status"],
                        score=c["score"],
                        max_score=c["max_score"],
                        problem=c["problem"],
                        visibility=c["visibility"],
                        inputs=tuple(c["inputs"].items()),
                        input_values=tuple(c.get("input_values", {}).items()),
                        code=c["code"],
                        observations=tuple(ObservationResult(**o) for o in c["observations"]),
                        diagnosis=None if c["diagnosis"] is None else _diagnosis(c["diagnosis"]),
                        cause=Cause(c["cause"]["kind"], c["cause"]["detail"], c["cause"]["line"])
                        if "cause" in c
                        else Cause("passed" if c["status"] == "passed" else "wrong-value"),
                        public_diagnosis=None
                        if c.get("public_diagnosis") is None
                        else _diagnosis(c["public_diagnosis"]),
                        traced=None
                        if c.get("traced") is None
                        else Trace(
                            tuple(c["traced"]["ops"]),
                            c["traced"]["how"],
                            tuple(c["traced"]["checks"]),
                        ),
                    )
                    for c in e["checks"]
                ),
            )
            for e in data["exercises"]
        ),
    )


@cache
def report_schema() -> dict[str, Any]:
    """The JSON Schema every report validates against; shipped in the package."""
    text = resources.files("grader").joinpath("schemas/report.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _diagnosis(data: dict[str, Any]) -> Diagnosis:
    rule = data.get("rule")
    return Diagnosis(
        kind=data["kind"],
        mistake=data["mistake"],
        hint=data["hint"],
        evidence=data["evidence"],
        rule=None if rule is None else RuleFault(**rule),
    )
