"""Every output format of one report, and the one place
a format is chosen: `render(name, report) -> bytes`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Literal, get_args

from grader.core.text import clean, clean_data, may_hold_surrogates
from grader.judge.report import Report
from grader.outputs.students import Outcome, Student

#: text: the terminal report; json: ours (grader/schemas/report.schema.json);
#: gradescope: results.json; junit: a JUnit XML document; lti: the LTI AGS
#: Score to POST; feedback: the student's HTML page
Format = Literal["text", "json", "gradescope", "junit", "lti", "feedback"]
FORMATS: tuple[Format, ...] = get_args(Format)


def render(
    name: Format,
    report: Report,
    *,
    student: Student | None = None,
    outcome: Outcome = "graded",
    now: datetime | None = None,
    color: bool = False,
) -> bytes:
    """`report` as the file format `name` writes it, UTF-8 encoded.

    `student` names whom it is for (a batch knows; a single `grade`'s is its file), `outcome`
    says how grading went, `now` stamps an LTI score, `color` paints the text report for a terminal.
    Each format is imported only when chosen: a student's `grade` never pays for the class formats.
    """
    label = student.id if student is not None else PurePath(report.submission).name
    if name == "text":
        from grader.outputs.render_text import render_text

        text = render_text(report, color=color)
    elif name == "json":
        from grader.outputs.render_json import render_json

        text = render_json(report)
    elif name == "gradescope":
        from grader.outputs.formats.gradescope import gradescope_results

        text = _dumps(gradescope_results(report))
    elif name == "junit":
        from grader.outputs.formats.junit import junit_xml

        text = junit_xml([(label, report)])
    elif name == "lti":
        from grader.outputs.formats.lti import lti_score

        user = (student.lti_user_id or student.id) if student is not None else label
        text = _dumps(lti_score(report, user, now or datetime.now(UTC), outcome=outcome))
    elif name == "feedback":
        from grader.outputs.feedback import feedback_html

        text = feedback_html(report, student, outcome)
    else:
        raise ValueError(f"unknown format {name!r}: one of {', '.join(FORMATS)}")
    try:
        return text.encode("utf-8")
    except (
        UnicodeEncodeError
    ):  # a surrogate some text of a submission's brought in: shown as U+FFFD, never a crash
        return clean(text).encode("utf-8")


def _dumps(data: object) -> str:
    """JSON for a platform's parser: a lone surrogate, which json.dumps
    escapes as `\\ud800` and strict parsers refuse, is written as U+FFFD."""
    text = json.dumps(data, indent=2) + "\n"
    return (
        json.dumps(clean_data(data), indent=2) + "\n"
        if may_hold_surrogates(text.encode())
        else text
    )
