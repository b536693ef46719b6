"""summary.html: the class summary (grader.outputs.summary)
as one offline page that leads to action.

From the top: the counts, who needs attention (each student named and linked to
their feedback page), then the scores, exercises, checks, problems and mistakes, and
a table of every student. Bars are HTML, so that long check names wrap instead of
being cut; every number on a bar is also written as text, for screen readers and for
print. Checks skipped for every student (CUDA on a machine without a GPU) are left
out of the charts and counted in a line. Inline CSS and one inline SVG; no scripts.
"""

from __future__ import annotations

from collections.abc import Sequence

from grader.outputs.attention import Attention
from grader.outputs.error_kinds import ErrorKind
from grader.outputs.html_charts import AMBER, BLUE, GREEN, GREY, RED, Bar, bar_chart, histogram
from grader.outputs.html_page import e, num, page, plural, table
from grader.outputs.summary_schema import (
    CheckStats,
    ExerciseStats,
    FailingCheck,
    GraderErrorRow,
    Mistake,
    Scores,
    Slow,
    StudentScore,
    Summary,
)

_BLUE, _GREEN, _AMBER, _RED, _GREY = BLUE, GREEN, AMBER, RED, GREY
#: how many students a kind of trouble names at the top before pointing to the table
NAMED = 12
_STATES = {
    "graded": "graded",
    "unreadable": "unreadable",
    "missing": "no submission",
    "grader-error": "grader error",
    "excused": "excused",
}

_CSS = """
ul.stats {
  display: flex; flex-wrap: wrap; gap: .5em; list-style: none; padding: 0; margin: .4em 0; }
ul.stats li { border: 1px solid #ccc; border-radius: 4px; padding: .2em .6em; }
ul.stats li.warn { border-color: #c62828; color: #c62828; }
section.attention {
  border: 2px solid #c62828; border-radius: 6px; padding: .2em .9em .5em; margin: .8em 0; }
section.attention h2 { border: 0; margin: .3em 0; color: #c62828; }
section.attention.calm { border-color: #2e7d32; } section.attention.calm h2 { color: #2e7d32; }
.trouble { margin: .35em 0; }
.trouble h3 { display: inline; font-size: 1em; margin: 0; }
.trouble .advice { color: #555; }
ul.who {
  list-style: none; margin: .15em 0 0; padding: 0; display: flex; flex-wrap: wrap;
  gap: .15em 1.2em; }
ul.who li { max-width: 100%; }
table.bars { width: 100%; max-width: 62em; border: 0; }
table.bars th, table.bars td {
  border: 0; background: none; padding: .12em .4em; vertical-align: middle; }
table.bars th { width: 34%; font-weight: normal; text-align: right; }
table.bars td.bar { width: 38%; }
.track { display: block; background: #eee; height: 1em; }
.fill { display: block; height: 1em; }
table.bars td.text { font-variant-numeric: tabular-nums; }
svg.chart { width: 100%; max-width: 720px; height: auto; display: block; }
svg text { font: 12px system-ui, sans-serif; fill: #1d1d1f; }
.legend span {
  display: inline-block; width: .9em; height: .9em; margin: 0 .3em 0 .8em; vertical-align: -.1em; }
table.students th, table.students td:nth-child(2), table.students td:nth-child(6) {
  white-space: nowrap; }
table.students td:first-child { min-width: 12em; }
tr.state-unreadable td:nth-child(2), tr.state-grader-error td:nth-child(2) { color: #c62828; }
tr.state-missing td:nth-child(2) { color: #8d6e00; }
@media (max-width: 640px) {
  body { padding: 0 .6em; }
  table.bars th, table.bars td { display: block; width: auto; text-align: left; padding: 0 .2em; }
  table.bars tr { display: block; margin-bottom: .45em; }
}
"""


def summary_html(summary: Summary, *, title: str = "autograd-grader: class summary") -> str:
    """The summary as one self-contained HTML page that opens offline and prints."""
    names = {s["student"]: s["name"] for s in summary["scores"]["students"]}
    sections = [
        f"<h1>{e(title)}</h1>",
        _overview(summary),
        _attention(summary["attention"]),
        _scores_section(summary["scores"]),
        _exercises_section(summary["exercises"]),
        _checks_section(summary["checks"], summary["exercises"]),
        _problems_section(summary, names),
        # what to teach again comes before what to fix in the grader or the machine
        _mistakes_section(summary["mistakes"], summary["exercises"], names),
        _students_section(summary["scores"]["students"]),
        _slowest_section(summary["slowest"]),
        _grader_errors_section(summary["grader_errors"]),
    ]
    return page(title, "\n".join(s for s in sections if s), _CSS)


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.0f}%"


def _rate_colour(rate: float | None) -> str:
    if rate is None:
        return _GREY
    return _GREEN if rate >= 0.8 else _AMBER if rate >= 0.5 else _RED


def _section(heading: str, *body: str, anchor: str = "") -> str:
    ident = f' id="{anchor}"' if anchor else ""
    return f"<section{ident}>\n<h2>{e(heading)}</h2>\n" + "\n".join(body) + "\n</section>"


def _ratio(value: float | None, whole: float) -> float | None:
    return value / whole if value is not None and whole > 0 else None


def _overview(summary: Summary) -> str:
    counts, scores = summary["counts"], summary["scores"]
    items = [
        (plural(counts["students"], "student"), False),
        (f"{counts['graded']} graded", False),
        (f"{counts['unreadable']} unreadable", counts["unreadable"] > 0),
        (f"{counts['missing']} without a submission", counts["missing"] > 0),
        (plural(counts["grader_errors"], "grader error"), counts["grader_errors"] > 0),
    ]
    if counts["not_on_roster"]:
        items.append((f"{counts['not_on_roster']} not on the roster", True))
    cards = "".join(
        f'<li class="warn">{e(text)}</li>' if warn else f"<li>{e(text)}</li>"
        for text, warn in items
    )
    if scores["mean"] is None:
        return f'<ul class="stats">{cards}</ul>\n<p class="muted">No student has a score.</p>'
    percent = f" ({num(scores['mean_percent'])}%)" if scores["mean_percent"] is not None else ""
    stats = (
        f"<p>Mean {num(scores['mean'])} of {num(scores['max_score'])} points{percent}, median "
        f"{num(scores['median'])}, lowest {num(scores['min'])}, highest {num(scores['max'])}, over "
        f"the {plural(scores['scored'], 'student')} the gradebook scores <span class=\"muted\">"
        "(unreadable and missing count as 0; grader errors are left out)</span>.</p>"
    )
    return f'<ul class="stats">{cards}</ul>\n{stats}'


def _attention(groups: Sequence[Attention]) -> str:
    if not groups:
        return (
            '<section class="attention calm" id="attention">\n<h2>Needs attention: nobody</h2>\n'
            "<p>Every student on the list was graded: no grader errors, nothing unreadable or "
            "missing, no timeouts.</p>\n</section>"
        )
    parts = []
    for group in groups:
        shown = group["students"][:NAMED]
        people = "".join(
            f"<li>{_who(f['name'], f['student'], f['link'])}: {e(f['detail'])}</li>" for f in shown
        )
        more = len(group["students"]) - len(shown)
        if more:
            people += f'<li class="muted"><a href="#students">and {more} more</a></li>'
        parts.append(
            f'<div class="trouble {e(group["kind"])}"><h3>{e(group["title"])} '
            f'({len(group["students"])})</h3> <span class="advice">{e(group["advice"])}</span><ul '
            f'class="who">{people}</ul></div>'
        )
    total = sum(len(g["students"]) for g in groups)
    return (
        f'<section class="attention" id="attention">\n<h2>Needs attention ({total})</h2>\n'
        + "\n".join(parts)
        + "\n</section>"
    )


def _named(student: str, names: dict[str, str]) -> str:
    """A student as the page names them: their name, and their id where it says more."""
    name = names.get(student, student)
    return name if name == student else f"{name} ({student})"


def _who(name: str, student: str, link: str) -> str:
    label = e(name) + (
        f' <span class="id">({e(student)})</span>' if student and student != name else ""
    )
    return f'<a href="{e(link)}">{label}</a>' if link else label


def _scores_section(scores: Scores) -> str:
    # Students whose maximum is 0 (every check skipped,
    # or 0-point exercises) have no percentage to chart.
    note = (
        f'<p class="muted">{plural(scores["unscored"], "student")} had no points to score.</p>'
        if scores["unscored"]
        else ""
    )
    if not any(b["count"] for b in scores["histogram"]):
        return _section(
            "Scores", '<p class="muted">No student has a percentage score to show.</p>', note
        )
    return _section("Scores", histogram(scores["histogram"]), note)


def _exercises_section(exercises: Sequence[ExerciseStats]) -> str:
    if not exercises:
        return ""
    means = [_mean_bar(x) for x in exercises]
    full = [
        Bar(
            x["id"],
            x["full_marks_rate"],
            f"{x['full_marks']} of {x['scored']} ({_pct(x['full_marks_rate'])})",
            _rate_colour(x["full_marks_rate"]),
            f"{x['id']}: {x['title']}",
        )
        for x in exercises
    ]
    over = (
        '<p class="muted">Each over the students the gradebook scores in that exercise, as the '
        'mean above: unreadable and missing count as 0.</p>'
    )
    return _section(
        "Exercises",
        "<h3>Mean score</h3>",
        over,
        bar_chart("Mean score per exercise", means),
        "<h3>Students with full marks</h3>",
        bar_chart("Share of students with full marks", full),
    )


def _mean_bar(exercise: ExerciseStats) -> Bar:
    rate = _ratio(exercise["mean_score"], exercise["max_points"])
    points = f"{num(exercise['mean_score'])} / {num(exercise['max_points'])}"
    return Bar(
        exercise["id"],
        rate,
        f"{points} ({_pct(rate)}) over {plural(exercise['scored'], 'student')}",
        _rate_colour(rate),
        f"{exercise['id']}: {exercise['title']}",
    )


def _legend() -> str:
    parts = [(_GREEN, "80% or more"), (_AMBER, "50–80%"), (_RED, "under 50%"), (_GREY, "never ran")]
    return (
        '<p class="legend muted">Pass rate:'
        + "".join(f'<span style="background:{colour}"></span>{label}' for colour, label in parts)
        + "</p>"
    )


def _checks_section(checks: Sequence[CheckStats], exercises: Sequence[ExerciseStats]) -> str:
    ran = [c for c in checks if c["passed"] + c["failed"] + c["error"]]
    if not checks:
        return ""
    titles = {x["id"]: x["title"] for x in exercises}
    parts = [_legend()]
    for exercise_id in dict.fromkeys(
        c["exercise"] for c in ran
    ):  # the summary's order, without repeats
        bars = [_check_bar(c) for c in ran if c["exercise"] == exercise_id]
        heading = f"{exercise_id}: {titles.get(exercise_id, '')}".rstrip(": ")
        parts += [
            f"<h3>{e(heading)}</h3>",
            bar_chart(f"Pass rate per check of {exercise_id}", bars),
        ]
    skipped = [c for c in checks if c not in ran]
    if skipped:
        names = ", ".join(c["check"] for c in skipped[:4]) + (", ..." if len(skipped) > 4 else "")
        parts.append(
            f'<p class="muted">{plural(len(skipped), "check")} skipped for every student, so not '
            f'shown (a device this run did not have or was not asked for): {e(names)}.</p>'
        )
    return _section("Checks", *parts)


def _check_bar(check: CheckStats) -> Bar:
    ran = check["passed"] + check["failed"] + check["error"]
    counts = (
        (check["error"] - check["not_run"], "error"),
        (check["not_run"], "not run"),
        (check["skipped"], "skipped"),
    )
    extra = "".join(f", {n} {what}" for n, what in counts if n)
    label = check["check"] + (" (hidden)" if check["visibility"] == "hidden" else "")
    tip = (
        f"{label}: {check['passed']} passed, {check['failed']} failed, {check['error']} error "
        f"({check['not_run']} never ran), {check['skipped']} skipped"
    )
    return Bar(
        label,
        check["pass_rate"],
        f"{check['passed']}/{ran} passed ({_pct(check['pass_rate'])}){extra}",
        _rate_colour(check["pass_rate"]),
        tip,
    )


def _problems_section(summary: Summary, names: dict[str, str]) -> str:
    failing, kinds = summary["failing_checks"], summary["error_kinds"]
    if not summary["counts"]["graded"]:
        return ""
    if not failing and not kinds:
        return _section(
            "Most frequent problems", '<p class="muted">None: every check that ran passed.</p>'
        )
    parts = []
    if failing:
        parts += [
            "<h3>Failing checks</h3>",
            bar_chart("The checks that fail most often", [_failing_bar(f, names) for f in failing]),
        ]
    if kinds:
        bars = [_kind_bar(k, summary["counts"]["graded"]) for k in kinds]
        examples = [
            [
                e(k["kind"]),
                e(_named(k["example_student"], names)),
                e(_clip(k["example_problem"], 200)),
            ]
            for k in kinds
        ]
        parts += [
            "<h3>Error kinds</h3>",
            bar_chart("The most frequent kinds of error", bars),
            table(["kind", "for example", "what the report says"], examples),
        ]
    return _section("Most frequent problems", *parts)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _failing_bar(failing: FailingCheck, names: dict[str, str]) -> Bar:
    label = f"{failing['exercise']}: {failing['check']}"
    text = (
        f"{failing['failing']} of {failing['students']} ({failing['failed']} wrong, "
        f"{failing['error']} error)"
    )
    tip = (
        f"{label}. For example {_named(failing['example_student'], names)}: "
        f"{failing['example_problem']}"
    )
    return Bar(label, _ratio(failing["failing"], failing["students"]), text, _RED, tip)


def _kind_bar(kind: ErrorKind, graded: int) -> Bar:
    text = f"{plural(kind['students'], 'student')}, {plural(kind['checks'], 'check')}"
    tip = f"{kind['kind']}: {kind['example_problem']}"
    return Bar(kind["kind"], _ratio(kind["students"], graded), text, _AMBER, tip)


def _mistakes_section(
    mistakes: Sequence[Mistake], exercises: Sequence[ExerciseStats], names: dict[str, str]
) -> str:
    if not mistakes:
        return ""
    graded = {x["id"]: x["graded"] for x in exercises}
    bars = [
        Bar(
            f"{m['exercise']}: {m['mistake']}",
            _ratio(m["students"], graded.get(m["exercise"], 0)),
            f"{plural(m['students'], 'student')} of {graded.get(m['exercise'], 0)}",
            _BLUE if m["kind"] == "known-mistake" else _AMBER,
            f"{m['exercise']}: {m['mistake']} ({m['kind']}), seen in {', '.join(m['checks'])}",
        )
        for m in mistakes
    ]
    legend = (
        f'<p class="legend muted">How sure:<span style="background:{_BLUE}"></span>a known mistake '
        f'(behaves like one of the exercise\'s mutants)<span style="background:{_AMBER}"></span>'
        "a pattern in the numbers</p>"
    )
    rows = [
        [
            f'<span class="nowrap">{e(m["exercise"])}</span>',
            f'<span class="id">{e(m["mistake"])}</span>',
            f'<span class="nowrap">{e(m["kind"])}</span>',
            str(m["students"]),
            e(", ".join(m["checks"][:3])),
            e(_named(m["example_student"], names)),
        ]
        for m in mistakes
    ]
    return _section(
        "Diagnosed mistakes",
        legend,
        bar_chart("The mistakes most students made", bars),
        table(
            ["exercise", "mistake", "kind", "students", "seen in", "for example"],
            rows,
            frozenset({3}),
        ),
    )


def _students_section(students: Sequence[StudentScore]) -> str:
    if not students:
        return ""
    rows = []
    for s in students:
        score = "–" if s["score"] is None else f"{num(s['score'])} / {num(s['max_score'])}"
        why = ", ".join(s["mistakes"][:3]) or ", ".join(s["errors"][:3])
        if s["outcome"] != "graded" and s["problem"]:
            why = _clip(s["problem"].removeprefix("Your submission could not be graded: "), 160)
        rows.append(
            (
                s["outcome"],
                [
                    _who(s["name"], s["student"], s["link"]),
                    e(_STATES[s["outcome"]]),
                    score,
                    f"{s['seconds']:.2f}",
                    e(why),
                    f'<span class="id">{e(s["file"])}</span>',
                ],
            )
        )
    body = table(
        ["student", "state", "score", "seconds", "diagnosis", "file graded"],
        [r for _, r in rows],
        frozenset({2, 3}),
        css_class="students",
        row_classes=[f"state-{o}" for o, _ in rows],
    )
    return _section(
        "Every student",
        '<p class="muted">Each name opens the page the student reads.</p>',
        body,
        anchor="students",
    )


def _slowest_section(slowest: Sequence[Slow]) -> str:
    if not slowest:
        return ""
    rows = [
        [str(i), e(_named(s["student"], {s["student"]: s["name"]})), f"{s['seconds']:.3f}"]
        for i, s in enumerate(slowest, start=1)
    ]
    return _section(
        "Slowest submissions", table(["#", "student", "seconds"], rows, frozenset({0, 2}))
    )


def _grader_errors_section(errors: Sequence[GraderErrorRow]) -> str:
    if not errors:
        return ""
    rows = [
        [e(_named(g["student"], {g["student"]: g["name"]})), f"<pre>{e(g['error'])}</pre>"]
        for g in errors
    ]
    return _section("Grader errors (not the students' fault)", table(["student", "error"], rows))
