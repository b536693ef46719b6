"""The report as HTML inside a notebook, redacted for a student (grader.judge.audience): one
compact table per exercise, the checks that did not pass expanded."""

from __future__ import annotations

from itertools import chain

from grader.core.compare import fmt_points
from grader.judge.audience import Audience, redact
from grader.judge.report import ExerciseResult, Report
from grader.outputs.feedback import check_detail
from grader.outputs.html_page import e, plural
from grader.outputs.render_text import OUTPUT_CHARS, OUTPUT_LINES, hidden_points_note, repeats

_WORD = {
    "passed": ("PASS", "#2e7d32"),
    "failed": ("FAIL", "#c62828"),
    "error": ("ERROR", "#8e24aa"),
    "skipped": ("SKIP", "#8d6e00"),
}
# Scoped to the output, and colours that read on JupyterLab's and VS Code's dark themes as on
# light ones. JupyterLab and Notebook 7 style every output table (@jupyterlab/rendermime's
# base.css): right-aligned cells under `:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td`
# (0,2,1), a centred fixed-layout table, zebra rows (0,2,2). `div.ag-report table.ag-table
# ...` (0,2,3) outranks them all, whichever stylesheet comes last.
_CSS = """
.ag-report { font-size: 13px; line-height: 1.4; text-align: left; }
div.ag-report table.ag-table {
  border-collapse: collapse; table-layout: auto; width: auto; margin: .2em 0 .6em;
  font-size: inherit; }
div.ag-report table.ag-table tr, div.ag-report table.ag-table tr:hover { background: transparent; }
div.ag-report table.ag-table td, div.ag-report table.ag-table th {
  padding: .15em .6em; text-align: left; vertical-align: top; white-space: normal;
  max-width: none; border: 0; border-bottom: 1px solid rgba(127,127,127,.3); }
div.ag-report table.ag-table td.ag-points {
  text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ag-report .ag-status { font-weight: 700; white-space: nowrap; }
div.ag-report table.ag-table td.ag-status, div.ag-report table.ag-table td.ag-points { width: 1%; }
div.ag-report table.ag-table tr.ag-detail > td { padding-left: 2.2em; }
.ag-report .ag-detail p { margin: .15em 0; text-align: left; }
.ag-report pre { margin: .15em 0; padding: 0; white-space: pre-wrap; text-align: left; }
.ag-report .problem, .ag-report .fail { color: #c62828; }
.ag-report .note, .ag-report .meta, .ag-report .about { opacity: .75; }
.ag-report .about { font-style: italic; }
.ag-report .likely { border-left: 3px solid #d08700; padding-left: .5em; }
"""


def report_html(report: Report, audience: Audience = Audience.STUDENT_AFTER_RELEASE) -> str:
    report = redact(report, audience)
    checks = list(chain.from_iterable(x.checks for x in report.exercises))
    counted = [c for c in checks if c.status != "skipped"]
    passed = sum(c.status == "passed" for c in counted)
    colour = "#2e7d32" if report.exit_code == 0 else "#c62828"
    parts = [
        f'<div class="ag-report"><style>{_CSS}</style>',
        f'<p><strong>Score: <span style="color:{colour}">{fmt_points(report.score)}/'
        f"{fmt_points(report.max_score)}</span></strong>{e(hidden_points_note(report))} "
        f'<span class="meta">({passed} of {plural(len(counted), "check")} passed, '
        f"{report.seconds:.1f} s)</span></p>",
    ]
    parts += [f'<p class="problem">{e(p)}</p>' for p in report.problems]
    parts += [f'<p class="problem">Integrity: {e(p)}</p>' for p in report.integrity]
    parts += [_exercise(x) for x in report.exercises]
    parts.append(_output(report))
    parts += [f'<p class="note">Note: {e(n)}</p>' for n in report.notes]
    return "\n".join(p for p in parts if p) + "\n</div>"


def problem_html(problem: str) -> str:
    return (
        '<div class="ag-report"><p style="color:#c62828"><strong>check():</strong> '
        f'{e(problem)}</p></div>'
    )


def _exercise(exercise: ExerciseResult) -> str:
    rows = []
    same = repeats(exercise.checks)
    for index, check in enumerate(exercise.checks):
        word, colour = _WORD[check.status]
        points = (
            "–"
            if check.status == "skipped"
            else f"{fmt_points(check.score)}/{fmt_points(check.max_score)}"
        )
        hidden = ' <span class="meta">(hidden)</span>' if check.visibility == "hidden" else ""
        rows.append(
            f'<tr><td class="ag-status" style="color:{colour}">{word}</td><td>'
            f'{e(check.name)}{hidden}</td><td class="ag-points">{points}</td></tr>'
        )
        if check.status == "passed" or same.get(index, index) != index:
            continue
        detail = check_detail(check)
        others = [
            c.name for i, c in enumerate(exercise.checks) if i != index and same.get(i) == index
        ]
        if others:
            what = (
                "skipped for the same reason"
                if check.status == "skipped"
                else f"the same error in {plural(len(others), 'more check')}"
            )
            detail += f'<p class="note">{what}: {e(", ".join(others))}</p>'
        rows.append(f'<tr class="ag-detail"><td colspan="3">{detail}</td></tr>')
    head = (
        f'<p><strong>Exercise {e(exercise.id)}</strong>: {e(exercise.title)} <span class="meta">'
        f'({fmt_points(exercise.score)}/{fmt_points(exercise.max_score)})</span></p>'
    )
    problems = "".join(f'<p class="problem">{e(p)}</p>' for p in exercise.problems)
    return f'{head}{problems}<table class="ag-table"><tbody>{"".join(rows)}</tbody></table>'


def _output(report: Report) -> str:
    if not report.output.strip():
        return ""
    output = report.output.rstrip("\n")
    shown = "\n".join(output[:OUTPUT_CHARS].split("\n")[:OUTPUT_LINES])
    more = (
        f" (the first {len(shown)} of {len(output)} characters)" if len(shown) < len(output) else ""
    )
    return f"<p><strong>Your code printed{more}:</strong></p><pre>{e(shown)}</pre>"
