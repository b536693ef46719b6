"""feedback.html: the page a student reads, one
self-contained file that opens offline, from their report.

It is made from the same report the text report renders (grader.outputs.render_text),
redacted for its student (grader.judge.audience): each check's status and points, what it
is about, the inputs and the code that ran, what was expected and what the student's code
gave, and the likely mistake with its hint. A hidden check's row says what it is about and
how it went.
"""

from __future__ import annotations

from itertools import chain

from grader.core.compare import fmt_points
from grader.judge.audience import Audience, redact
from grader.judge.report import CheckResult, ExerciseResult, Report, exercise_mistakes
from grader.outputs.html_page import e, page, plural
from grader.outputs.precision_note import precision_note, with_precision_note
from grader.outputs.render_text import MASKED_INTRO, hidden_points_note
from grader.outputs.students import Outcome, Student

_WORD = {
    "passed": ("PASS", "pass"),
    "failed": ("FAIL", "fail"),
    "error": ("ERROR", "error"),
    "skipped": ("SKIP", "skip"),
}
_STATE = {
    "unreadable": "Your submission could not be graded.",
    "missing": "No submission was received from you.",
    "grader-error": (
        "The grader failed on your submission; this is not your fault, and your instructor knows."
    ),
    "excused": "Your instructor excused you from this assignment.",
}

_CSS = """
body { max-width: 56em; }
.score { font-size: 1.25em; font-weight: 600; margin: .3em 0; }
.meta { color: #555; margin: 0; }
.problem { color: #c62828; } .note { color: #555; }
ol.checks { list-style: none; padding: 0; margin: .3em 0; }
ol.checks > li { border-top: 1px solid #e0e0e0; padding: .35em 0; }
.status { display: inline-block; min-width: 3.6em; font-weight: 700; }
.points { float: right; font-variant-numeric: tabular-nums; color: #333; }
.detail { margin: .3em 0 .1em 3.8em; }
.detail table td, .detail table th { font-family: ui-monospace, monospace; font-size: 12px; }
.about { font-style: italic; }
.likely {
  background: #fff8e1; border-left: 3px solid #d08700; padding: .2em .5em; margin-top: .3em; }
pre.code, pre.output {
  background: #f6f8fa; padding: .4em .6em; border-radius: 4px; overflow-x: auto; }
@media (max-width: 640px) {
  .detail { margin-left: .6em; } .points { float: none; display: block; }
}
"""


def feedback_html(
    report: Report,
    student: Student | None = None,
    outcome: Outcome = "graded",
    *,
    audience: Audience = Audience.STUDENT_AFTER_RELEASE,
) -> str:
    """The student's page for `report`, as `audience` may read it; `student` names them (a
    batch knows who), `outcome` says how it went."""
    report = redact(report, audience)
    titles = ", ".join(x.title for x in report.exercises) or "your submission"
    body = [f"<h1>Feedback: {e(titles)}</h1>", _header(report, student, outcome)]
    body += [f'<p class="problem">{e(p)}</p>' for p in report.problems]
    body += [f'<p class="note">Note: {e(n)}</p>' for n in report.notes]
    body += [_exercise(x) for x in report.exercises]
    body.append(_output(report))
    body.append(
        f'<p class="meta">Graded by autograd-grader {e(report.grader_version)} with '
        f"{e(report.seed_shown)}: the same file and seed always give this page.</p>"
    )
    return page(f"Feedback: {titles}", "\n".join(b for b in body if b), _CSS)


def _header(report: Report, student: Student | None, outcome: Outcome) -> str:
    checks = list(chain.from_iterable(x.checks for x in report.exercises))
    counted = [c for c in checks if c.status != "skipped"]
    passed = sum(c.status == "passed" for c in counted)
    who = (
        f"{e(student.name)}"
        + (f' <span class="id">({e(student.id)})</span>' if student.name != student.id else "")
        if student is not None
        else ""
    )
    lines = [
        f'<p class="meta">{who + " · " if who else ""}file graded: <span class="id">'
        f'{e(report.submission)}</span></p>'
    ]
    if outcome != "graded":
        lines.append(f'<p class="problem">{e(_STATE[outcome])}</p>')
    if outcome not in ("grader-error", "excused"):
        lines.append(
            f'<p class="score">Score: {fmt_points(report.score)}/{fmt_points(report.max_score)}'
            f'{e(hidden_points_note(report))} '
            f'<span class="meta">({passed} of {plural(len(counted), "check")} passed)</span></p>'
        )
    return "\n".join(lines)


def _exercise(exercise: ExerciseResult) -> str:
    parts = [
        f'<section><h2>Exercise {e(exercise.id)}: {e(exercise.title)} <span class="meta">'
        f'({fmt_points(exercise.score)}/{fmt_points(exercise.max_score)})</span></h2>'
    ]
    parts += [f'<p class="problem">{e(p)}</p>' for p in exercise.problems]
    parts.append('<ol class="checks">' + "".join(_check(c) for c in exercise.checks) + "</ol>")
    found, unknown = exercise_mistakes(exercise)
    if found:
        named = "; ".join(
            f"{mistake} ({'a known mistake' if kind == 'known-mistake' else 'a pattern'}, "
            f"{plural(n, 'check')})"
            for kind, mistake, n in found
        )
        parts.append(f"<p><strong>Likely mistakes:</strong> {e(named)}</p>")
    if unknown:
        parts.append(
            f'<p class="note">{plural(unknown, "failed check")} fit no known mistake or pattern: '
            'compare expected and got above.</p>'
        )
    if exercise.masked:
        parts.append(
            f"<p><strong>{e(MASKED_INTRO)}</strong></p><ul>"
            + "".join(
                f"<li>{e(d.mistake)}: {e(d.hint)} <span class=\"meta\">({e(d.evidence)})</span>"
                "</li>"
                for d in exercise.masked
            )
            + "</ul>"
        )
    return "\n".join(parts) + "\n</section>"


def _check(check: CheckResult) -> str:
    word, css = _WORD[check.status]
    points = (
        "–"
        if check.status == "skipped"
        else f"{fmt_points(check.score)}/{fmt_points(check.max_score)}"
    )
    hidden = check.visibility == "hidden"
    head = (
        f'<span class="status {css}">{word}</span> {e(check.name)}'
        + (' <span class="meta">(hidden)</span>' if hidden else "")
        + f'<span class="points">{points}</span>'
    )
    if check.status == "passed":
        return f"<li>{head}</li>"
    return f'<li>{head}<div class="detail">{check_detail(check)}</div></li>'


def check_detail(check: CheckResult) -> str:
    """What a check that did not pass is about, what ran,
    expected and got, and the likely mistake, as HTML."""
    if (
        check.visibility == "hidden"
    ):  # what it is about and how it went; no inputs, code, values or diagnosis
        about = f'<p class="about">{e(check.about)}</p>' if check.about else ""
        return f'{about}<p class="note">{e(with_precision_note(check.problem, check))}</p>'
    detail = []
    if check.about:
        detail.append(f'<p class="about">{e(check.about)}</p>')
    if check.inputs:
        detail.append(
            "<p><strong>inputs</strong> <code>"
            + e(", ".join(f"{name} = {value}" for name, value in check.inputs))
            + "</code></p>"
        )
    if check.code:
        detail.append(
            f'<p><strong>ran</strong></p><pre class="code">{e(check.code.rstrip())}</pre>'
        )
    wrong = [o for o in check.observations if not o.ok]
    if wrong:
        # The problem repeats expected and got for a plain
        # mismatch; it says more for a shape or an error.
        notes = [
            "" if o.problem in ("", f"expected {o.expected}, got {o.got}") else o.problem
            for o in wrong
        ]
        extra = any(notes)
        rows = "".join(
            f"<tr><th>{e(o.label)}</th><td>{e(o.expected)}</td><td class=\"fail\">{e(o.got)}</td>"
            + (f"<td>{e(note)}</td>" if extra else "")
            + "</tr>"
            for o, note in zip(wrong, notes, strict=True)
        )
        why = "<th>why</th>" if extra else ""
        detail.append(
            '<div class="scroll"><table><thead><tr><th></th><th>expected</th><th>got</th>'
            f"{why}</tr></thead><tbody>{rows}</tbody></table></div>"
        )
    elif check.problem:
        detail.append(
            f'<p class="{"skip" if check.status == "skipped" else "fail"}">{e(check.problem)}</p>'
        )
    if precision_note(check):
        detail.append(f'<p class="note">{e(precision_note(check))}</p>')
    diagnosis = check.diagnosis
    if diagnosis is not None and diagnosis.kind != "unknown":
        sure = {
            "known-mistake": "a known mistake",
            "localized": "found by running each operation alone",
        }.get(diagnosis.kind, "a pattern")
        detail.append(
            f'<p class="likely"><strong>likely</strong> <code>{e(diagnosis.mistake)}</code> '
            f'({sure}): {e(diagnosis.hint)}</p>'
        )
    return "".join(detail)


def _output(report: Report) -> str:
    if not report.output.strip():
        return ""
    more = " (cut short)" if report.output_truncated else ""
    return (
        f'<h2>Your code printed{more}</h2>\n<pre class="output">{e(report.output.rstrip())}</pre>'
    )
