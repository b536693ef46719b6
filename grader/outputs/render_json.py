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
    isolation = data.get("isolation")
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
        isolation=_isolation(isolation) if isolation else None,
        integrity=tuple(data.get("integrity", ())),
        exercises=tuple(_exercise_from(e) for e in data["exercises"]),
    )


def _isolation(data: dict[str, Any]) -> Isolation:
    return Isolation(**{**data, "weaker_limits": tuple(data.get("weaker_limits", ()))})


def _exercise_from(data: dict[str, Any]) -> ExerciseResult:
    public_masked = data.get("public_masked")
    return ExerciseResult(
        id=data["id"],
        title=data["title"],
        problems=tuple(data["problems"]),
        hidden_points=data.get("hidden_points", 0.0),
        masked=tuple(_diagnosis(d) for d in data.get("masked", ())),
        public_masked=None if public_masked is None else tuple(map(_diagnosis, public_masked)),
        checks=tuple(_check_from(c) for c in data["checks"]),
    )


def _check_from(data: dict[str, Any]) -> CheckResult:
    if "cause" in data:
        cause = Cause(data["cause"]["kind"], data["cause"]["detail"], data["cause"]["line"])
    else:
        cause = Cause("passed" if data["status"] == "passed" else "wrong-value")
    diagnosis, public = data["diagnosis"], data.get("public_diagnosis")
    traced = data.get("traced")
    return CheckResult(
        name=data["name"],
        about=data["about"],
        status=data["status"],
        score=data["score"],
        max_score=data["max_score"],
        problem=data["problem"],
        visibility=data["visibility"],
        inputs=tuple(data["inputs"].items()),
        input_values=tuple(data.get("input_values", {}).items()),
        code=data["code"],
        observations=tuple(ObservationResult(**o) for o in data["observations"]),
        diagnosis=None if diagnosis is None else _diagnosis(diagnosis),
        cause=cause,
        public_diagnosis=None if public is None else _diagnosis(public),
        traced=None if traced is None else _trace(traced),
    )


def _trace(data: dict[str, Any]) -> Trace:
    return Trace(tuple(data["ops"]), data["how"], tuple(data["checks"]))


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
