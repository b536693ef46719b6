"""JUnit XML for CI (GitLab, GitHub test reporters,
Jenkins): one testsuite per student and exercise."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

from grader.judge.report import CheckResult, ExerciseResult, Report
from grader.outputs.precision_note import with_precision_note

# Characters XML 1.0 cannot carry at all, even escaped: C0 controls other than tab and
# newlines (ANSI colour codes in what students print), lone surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_RESULT = {"failed": "failure", "error": "error"}


@dataclass(frozen=True, slots=True)
class _Counts:
    tests: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    #: whole milliseconds, so that a suite's time is exactly the sum of its testcases'
    ms: int = 0

    def __add__(self, other: _Counts) -> _Counts:
        return _Counts(
            self.tests + other.tests,
            self.failures + other.failures,
            self.errors + other.errors,
            self.skipped + other.skipped,
            self.ms + other.ms,
        )


def junit_xml(suites: Sequence[tuple[str, Report]], *, name: str = "autograd-grader") -> str:
    """One <testsuites> document for labelled reports
    (a student's id, or the file name for one report)."""
    root = ET.Element("testsuites", {"name": _clean(name)})
    total = _Counts()
    for label, report in suites:
        for suite, counts in _report_suites(label, report):
            root.append(suite)
            total += counts
    _set_counts(root, total)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _report_suites(label: str, report: Report) -> list[tuple[ET.Element, _Counts]]:
    if not report.exercises:
        return [_unloaded_suite(label, report, round(report.seconds * 1000))]
    # One child process ran every check of a report: the grader knows the whole run's
    # time, not each check's, so it is shared evenly among the checks that ran.
    checks = chain.from_iterable(e.checks for e in report.exercises)
    ran = sum(c.status != "skipped" for c in checks)
    ms = round(report.seconds * 1000 / ran) if ran else 0
    return [_suite(label, report, exercise, ms) for exercise in report.exercises]


def _suite(
    label: str, report: Report, exercise: ExerciseResult, ms: int
) -> tuple[ET.Element, _Counts]:
    suite = ET.Element("testsuite", {"name": _clean(f"{label}: {exercise.id}")})
    _suite_properties(suite, report, exercise.score, exercise.max_score)
    counts = _Counts()
    for check in exercise.checks:
        check_ms = 0 if check.status == "skipped" else ms
        suite.append(_testcase(f"{label}.{exercise.id}", check, check_ms))
        counts += _Counts(
            1,
            int(check.status == "failed"),
            int(check.status == "error"),
            int(check.status == "skipped"),
            check_ms,
        )
    _streams(suite, report, exercise.problems)
    _set_counts(suite, counts)
    return suite, counts


def _unloaded_suite(label: str, report: Report, ms: int) -> tuple[ET.Element, _Counts]:
    """A report that graded no exercise (it named none
    it could be graded on): its problems as one error."""
    suite = ET.Element("testsuite", {"name": _clean(label)})
    _suite_properties(suite, report, 0.0, 0.0)
    counts = _Counts()
    if report.problems:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": _clean(label), "name": "submission", "time": _seconds(ms)},
        )
        error = ET.SubElement(
            case, "error", {"message": _clean(report.problems[0]), "type": "error"}
        )
        error.text = _clean("\n".join(report.problems))
        counts = _Counts(tests=1, errors=1, ms=ms)
    _streams(suite, report, ())
    _set_counts(suite, counts)
    return suite, counts


def _testcase(classname: str, check: CheckResult, ms: int) -> ET.Element:
    case = ET.Element(
        "testcase",
        {"classname": _clean(classname), "name": _clean(check.name), "time": _seconds(ms)},
    )
    diagnosis = check.diagnosis
    named = (
        [("diagnosis", diagnosis.kind), ("mistake", diagnosis.mistake)]
        if diagnosis is not None and diagnosis.kind != "unknown"
        else []
    )
    _properties(
        case,
        [
            ("score", _number(check.score)),
            ("max_score", _number(check.max_score)),
            ("visibility", check.visibility),
            *named,
        ],
    )
    if check.status in _RESULT:
        # The attribute is the short problem (test reporters
        # show it in one line); the text adds what was run.
        result = ET.SubElement(
            case,
            _RESULT[check.status],
            {"message": _clean(check.problem or check.message), "type": check.status},
        )
        result.text = _clean(with_precision_note(check.message, check))
    elif check.status == "skipped":
        ET.SubElement(case, "skipped", {"message": _clean(check.message or "skipped")})
    return case


def _streams(suite: ET.Element, report: Report, exercise_problems: Sequence[str]) -> None:
    """What the submission printed in <system-out>; why it
    did not load, or an exercise stopped, in <system-err>."""
    out = [f"note: {n}" for n in report.notes] + ([report.output] if report.output else [])
    if report.output_truncated:
        out.append("(it printed more; the rest was dropped)")
    err = [*report.problems, *exercise_problems]
    for tag, lines in (("system-out", out), ("system-err", err)):
        if lines:
            ET.SubElement(suite, tag).text = _clean("\n".join(lines))


def _suite_properties(suite: ET.Element, report: Report, score: float, max_score: float) -> None:
    """Points, and what it takes to grade the submission again the same way."""
    seed = str(report.seed) if report.seed_token is None else report.seed_token
    _properties(
        suite,
        [
            ("score", _number(score)),
            ("max_score", _number(max_score)),
            ("seed", seed),
            ("sha256", report.sha256),
            ("grader_version", _clean(report.grader_version)),
        ],
    )


def _properties(parent: ET.Element, pairs: Sequence[tuple[str, str]]) -> None:
    properties = ET.SubElement(parent, "properties")
    for key, value in pairs:
        ET.SubElement(properties, "property", {"name": key, "value": value})


def _set_counts(element: ET.Element, counts: _Counts) -> None:
    element.set("tests", str(counts.tests))
    element.set("failures", str(counts.failures))
    element.set("errors", str(counts.errors))
    element.set("skipped", str(counts.skipped))
    element.set("time", _seconds(counts.ms))


def _clean(text: str) -> str:
    """`text` with what XML cannot hold made visible: an
    escape code for control characters, U+FFFD otherwise."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if m[0] < " " else "\ufffd", text)


def _seconds(ms: int) -> str:
    return f"{ms / 1000:.3f}"


def _number(x: float) -> str:
    """Points as plain decimals, never in exponent form: 10, 2.5, 0.333333."""
    return f"{x + 0.0:.6f}".rstrip("0").rstrip(".")
