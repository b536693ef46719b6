"""How a whole class did: a batch's reports as JSON-ready data (summary.json) and as one offline HTML page."""

from __future__ import annotations

import html
import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from grader.formats import ExerciseColumn, Outcome, StudentReport
from grader.report import CheckResult, ExerciseResult, Report

SUMMARY_VERSION = "1.0"
#: the histogram's bins: 0-10%, ..., 90-100% (100% goes in the last)
BINS = 10
#: how many failing checks, error kinds and slow submissions the summary names
TOP = 10
#: scores are rounded to 6 places, so full marks is "within a millionth of the maximum"
_EPS = 1e-6


# --------------------------------------------------------------------------------------------
# The shape of summary.json. Rates are fractions in [0, 1] and percentages are in [0, 100]; either is
# null where its denominator is 0 (no students, or a maximum of 0 points). Lists are in a fixed order,
# so the same reports always give byte-identical JSON, whatever order the batch found them in.


class Counts(TypedDict):
    students: int
    graded: int
    unreadable: int
    grader_errors: int


class Bin(TypedDict):
    low: int  # percent, inclusive
    high: int  # percent, exclusive except in the last bin
    count: int


class StudentScore(TypedDict):
    student: str
    outcome: Outcome
    #: unreadable: 0 out of the columns' total; grader-error: null (no score is the student's)
    score: float | None
    max_score: float | None
    percent: float | None
    seconds: float


class Scores(TypedDict):
    """Statistics over graded students only; the histogram counts those whose maximum is not 0."""

    max_score: float  # the columns' total
    mean: float | None
    median: float | None
    min: float | None
    max: float | None
    mean_percent: float | None
    unscored: int  # graded students whose maximum is 0: they have no percentage
    histogram: list[Bin]
    students: list[StudentScore]  # every row, by student id


class ExerciseStats(TypedDict):
    id: str
    title: str
    max_points: float
    graded: int  # graded students with a result for this exercise
    mean_score: float | None
    mean_percent: float | None
    full_marks: int
    full_marks_rate: float | None


class CheckStats(TypedDict):
    exercise: str
    check: str
    visibility: Literal["public", "hidden"]
    passed: int
    failed: int
    error: int
    #: of the errors, the checks that never ran: the code did not load, or stopped at an earlier check
    not_run: int
    skipped: int
    #: passed / (passed + failed + error): a check that errored or never ran counts as not passed
    pass_rate: float | None


class FailingCheck(TypedDict):
    """A check that ran and did not pass; checks that never ran are left to `error_kinds`, which name why."""

    exercise: str
    check: str
    failing: int  # failed + error
    failed: int  # a wrong answer
    error: int  # raised, crashed or timed out while it ran
    students: int  # graded students for whom it was not skipped
    example_student: str
    example_problem: str


class ErrorKind(TypedDict):
    kind: str  # an exception type (SyntaxError), or timeout, crash, exited, not attempted, rule violation...
    students: int
    checks: int  # the check results it cost
    example_student: str
    example_problem: str  # the problem text the kind was read from


class Slow(TypedDict):
    student: str
    seconds: float


class GraderErrorRow(TypedDict):
    student: str
    error: str


class Mistake(TypedDict):
    """A diagnosed mistake, and how many students made it (named on at least one of their failed checks)."""

    exercise: str
    mistake: str
    #: known-mistake (behaves like one of the exercise's mutants), localized (one rule, by running it alone) or pattern
    kind: str
    students: int
    #: the checks where it was named, the most frequent first
    checks: list[str]
    example_student: str


class Summary(TypedDict):
    version: str
    counts: Counts
    scores: Scores
    exercises: list[ExerciseStats]
    checks: list[CheckStats]  # exercise by exercise, checks in the spec's order
    failing_checks: list[FailingCheck]  # the TOP most failing, most first
    error_kinds: list[ErrorKind]  # most students first
    slowest: list[Slow]  # the TOP slowest graded submissions
    grader_errors: list[GraderErrorRow]
    mistakes: list[Mistake]


# --------------------------------------------------------------------------------------------
# The summary


def class_summary(rows: Sequence[StudentReport], columns: Sequence[ExerciseColumn]) -> Summary:
    """What the instructor and CI want to know about a graded class, as plain data; no clocks, fixed order."""
    ordered = sorted(rows, key=lambda r: (r.student.id, r.student.submission))  # input order must not matter
    graded = [r for r in ordered if r.outcome == "graded"]
    exercises = _exercise_columns(graded, columns)
    by_check = _results_by_check(graded, exercises)
    return Summary(
        version=SUMMARY_VERSION,
        counts=Counts(students=len(ordered), graded=len(graded),
                      unreadable=sum(r.outcome == "unreadable" for r in ordered),
                      grader_errors=sum(r.outcome == "grader-error" for r in ordered)),
        scores=_scores(ordered, round(sum(c.points for c in exercises), 6)),
        exercises=[_exercise_stats(c, [e for r in graded for e in r.report.exercises if e.id == c.id])
                   for c in exercises],
        checks=[_check_stats(key, results) for key, results in by_check.items()],
        failing_checks=_failing_checks(by_check),
        error_kinds=_error_kinds(graded),
        slowest=sorted((Slow(student=r.student.id, seconds=round(r.report.seconds, 3)) for r in graded),
                       key=lambda s: -s["seconds"])[:TOP],  # stable: equal times stay in student order
        grader_errors=[GraderErrorRow(student=r.student.id, error=r.error)
                       for r in ordered if r.outcome == "grader-error"],
        mistakes=_mistakes(graded),
    )


def _mistakes(graded: Sequence[StudentReport]) -> list[Mistake]:
    """The class's diagnosed mistakes, the most widespread first."""
    students: dict[tuple[str, str, str], list[str]] = {}
    checks: dict[tuple[str, str, str], Counter[str]] = {}
    for row in graded:
        for exercise in row.report.exercises:
            for check in exercise.checks:
                diagnosis = check.diagnosis
                if diagnosis is None or diagnosis.kind == "unknown":
                    continue
                key = (exercise.id, diagnosis.mistake, diagnosis.kind)
                if row.student.id not in students.setdefault(key, []):
                    students[key].append(row.student.id)
                checks.setdefault(key, Counter())[check.name] += 1
    ordered = sorted(students, key=lambda k: (-len(students[k]), k))
    return [Mistake(exercise=k[0], mistake=k[1], kind=k[2], students=len(students[k]),
                    checks=[name for name, _ in checks[k].most_common()], example_student=students[k][0])
            for k in ordered[:TOP]]


def _exercise_columns(graded: Sequence[StudentReport], columns: Sequence[ExerciseColumn]) -> list[ExerciseColumn]:
    """The gradebook's columns, then any exercise a report has that they lack (by id), so nothing is dropped."""
    known = {c.id for c in columns}
    extra: dict[str, ExerciseColumn] = {}
    for result in (e for r in graded for e in r.report.exercises if e.id not in known):
        points = max(result.max_score, extra[result.id].points if result.id in extra else 0.0)
        extra[result.id] = ExerciseColumn(result.id, result.title, points)
    return [*columns, *(extra[i] for i in sorted(extra))]


def _percent(score: float, max_score: float) -> float | None:
    # Rounded before binning, so that 3/10 lands in 30-40% and not, by float error, in 20-30%.
    return round(100 * score / max_score, 6) if max_score > 0 else None


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 6) if values else None


def _student_score(row: StudentReport, total: float) -> StudentScore:
    report = row.report
    if row.outcome == "graded":
        score: float | None = report.score
        max_score: float | None = report.max_score
    else:
        score, max_score = (0.0, total) if row.outcome == "unreadable" else (None, None)
    percent = _percent(score, max_score) if score is not None and max_score is not None else None
    return StudentScore(student=row.student.id, outcome=row.outcome, score=score, max_score=max_score,
                        percent=percent, seconds=round(report.seconds, 3))


def _scores(rows: Sequence[StudentReport], total: float) -> Scores:
    graded = [r.report for r in rows if r.outcome == "graded"]
    points = [r.score for r in graded]
    percents = [p for r in graded if (p := _percent(r.score, r.max_score)) is not None]
    counts = [0] * BINS
    for percent in percents:
        counts[min(int(percent // (100 / BINS)), BINS - 1)] += 1  # 100% belongs to the last bin
    width = 100 // BINS
    return Scores(
        max_score=total,
        mean=_mean(points),
        median=round(statistics.median(points), 6) if points else None,
        min=min(points, default=None),
        max=max(points, default=None),
        mean_percent=_mean(percents),
        unscored=len(graded) - len(percents),
        histogram=[Bin(low=i * width, high=(i + 1) * width, count=n) for i, n in enumerate(counts)],
        students=[_student_score(r, total) for r in rows],
    )


def _full_marks(result: ExerciseResult) -> bool:
    return result.max_score > 0 and result.score >= result.max_score - _EPS


def _exercise_stats(column: ExerciseColumn, results: Sequence[ExerciseResult]) -> ExerciseStats:
    scored = [r for r in results if r.max_score > 0]
    full = sum(_full_marks(r) for r in scored)
    return ExerciseStats(
        id=column.id,
        title=column.title,
        max_points=column.points,
        graded=len(results),
        mean_score=_mean([r.score for r in results]),
        mean_percent=_mean([p for r in scored if (p := _percent(r.score, r.max_score)) is not None]),
        full_marks=full,
        full_marks_rate=round(full / len(scored), 6) if scored else None,
    )


#: (exercise id, check name) -> each graded student's result for it, by student id
ByCheck = dict[tuple[str, str], list[tuple[str, CheckResult]]]


def _results_by_check(graded: Sequence[StudentReport], columns: Sequence[ExerciseColumn]) -> ByCheck:
    """Exercise by exercise in column order; checks in the order the reports list them (the spec's)."""
    by_check: ByCheck = {}
    for column in columns:
        for row in graded:
            for result in (e for e in row.report.exercises if e.id == column.id):
                for check in result.checks:
                    by_check.setdefault((column.id, check.name), []).append((row.student.id, check))
    return by_check


def _never_ran(check: CheckResult) -> bool:
    # The report has no flag for it: such a check is an error whose problem says "Not run: ..." (grader.check).
    return check.status == "error" and check.problem.startswith("Not run:")


def _check_stats(key: tuple[str, str], results: Sequence[tuple[str, CheckResult]]) -> CheckStats:
    count = {status: sum(c.status == status for _, c in results) for status in ("passed", "failed", "error")}
    ran = sum(count.values())
    return CheckStats(exercise=key[0], check=key[1], visibility=results[0][1].visibility,
                      passed=count["passed"], failed=count["failed"], error=count["error"],
                      not_run=sum(_never_ran(c) for _, c in results), skipped=len(results) - ran,
                      pass_rate=round(count["passed"] / ran, 6) if ran else None)


def _failing_checks(by_check: ByCheck) -> list[FailingCheck]:
    failing = []
    for (exercise, name), results in by_check.items():
        bad = [(student, c) for student, c in results if c.status in ("failed", "error") and not _never_ran(c)]
        if bad:
            failed = sum(c.status == "failed" for _, c in bad)
            failing.append(FailingCheck(
                exercise=exercise, check=name, failing=len(bad), failed=failed, error=len(bad) - failed,
                students=sum(c.status != "skipped" for _, c in results),
                example_student=bad[0][0], example_problem=bad[0][1].problem))
    # sorted() is stable: equal counts keep the exercise and spec order.
    return sorted(failing, key=lambda f: -f["failing"])[:TOP]


# --------------------------------------------------------------------------------------------
# Error kinds, read from the problem texts the grader wrote. Only the opening of a text is matched: what
# follows it can quote the student's own exception message, which could say anything.

_TYPE = r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"  # a dotted name, without the sentence's full stop
_RAISED = re.compile(r"(?:Your code raised|Your file could not be loaded:|A cell raised) " + _TYPE)
_READING_RAISED = re.compile(r"but reading it raised " + _TYPE)
_DEVICE = re.compile(r"On [A-Z]+: ")  # a problem from one of several devices' runs
_OPENINGS = (
    ("Not implemented yet", "not attempted"),
    ("Your code did not finish within", "timeout"),
    ("Your code crashed", "crash"),
    ("Your code ended the process with exit code", "exited"),
    ("Your code was stopped by", "resource limit"),
    ("Your code sent more than", "oversized reply"),
    ("Your code sent a reply the grader could not read", "unreadable reply"),
    ("Your code ended, and the grader could not learn how", "ended unexpectedly"),
    ("Your code the grader's code in the child failed", "grader failure"),
    ("Your code breaks a rule", "rule violation"),
    ("Your file does not define", "missing definition"),
    ("Not run: it needs", "missing definition"),
    ("The grader failed", "grader failure"),
    ("Your notebook does not define", "missing definition"),
    ("The grader's oracles disagree", "oracle disagreement"),
)
_RULE = "Your code breaks a rule"


def _without_device(problem: str) -> str:
    return problem[device.end():] if (device := _DEVICE.match(problem)) else problem


def error_kind(problem: str) -> str | None:
    """The kind of error a problem text reports (RuntimeError, timeout, crash...); None for a plain wrong answer."""
    problem = _without_device(problem)
    if match := _RAISED.match(problem):
        return match.group(1)
    for opening, kind in _OPENINGS:
        if problem.startswith(opening):
            return kind
    match = _READING_RAISED.search(problem)  # a failed check whose observation raised
    return match.group(1) if match else None


def _causes(check: CheckResult, exercise: ExerciseResult, report: Report) -> tuple[str, ...]:
    """Where to read why a check lost its points: its own problem, or the ones it points at ("see above")."""
    problem = check.problem
    if problem.startswith("Right result, but not scored"):
        return exercise.problems  # the rule it broke
    # A rule checker that cannot parse a cell reports rules as broken; what stopped the check is elsewhere.
    stopped = tuple(p for p in (*exercise.problems, *report.problems) if not _without_device(p).startswith(_RULE))
    if problem.startswith("Not run: your file did not load"):
        return (*report.problems, *stopped)  # the load error first: the missing names follow from it
    if problem.startswith(("Not run: your notebook did not load", "Not run: your code stopped",
                           "Not run: your file does not define", "Not run: your notebook does not define")):
        return stopped  # this exercise's missing names or stop first: the report's may be an unrelated cell's
    return (problem,)


def _check_error(check: CheckResult, exercise: ExerciseResult, report: Report) -> tuple[str, str] | None:
    """The error kind that cost this check its points, and the text it was read from."""
    for text in _causes(check, exercise, report):
        if (kind := error_kind(text)) is not None:
            return kind, text
    return ("other error", check.problem) if check.status == "error" else None


@dataclass
class _KindTally:
    example_student: str
    example_problem: str
    students: set[str] = field(default_factory=set)
    checks: int = 0


def _error_kinds(graded: Sequence[StudentReport]) -> list[ErrorKind]:
    tallies: dict[str, _KindTally] = {}
    for row in graded:  # by student id, so each kind's example is the first such student
        for exercise in row.report.exercises:
            for check in exercise.checks:
                found = _check_error(check, exercise, row.report) if check.status in ("failed", "error") else None
                if found is not None:
                    tally = tallies.setdefault(found[0], _KindTally(row.student.id, found[1]))
                    tally.students.add(row.student.id)
                    tally.checks += 1
    kinds = [ErrorKind(kind=kind, students=len(t.students), checks=t.checks, example_student=t.example_student,
                       example_problem=t.example_problem) for kind, t in tallies.items()]
    return sorted(kinds, key=lambda k: (-k["students"], -k["checks"], k["kind"]))


# --------------------------------------------------------------------------------------------
# The page: inline CSS, inline SVG, no scripts and nothing fetched (the CSP forbids it, should a text slip
# through unescaped). Every number on a bar is also written as text, for screen readers and for print.

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; margin: 2em auto;
       max-width: 60em; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin-bottom: .2em; }
ul.stats { display: flex; flex-wrap: wrap; gap: .6em; list-style: none; padding: 0; }
ul.stats li { border: 1px solid #ccc; border-radius: 4px; padding: .3em .7em; }
ul.stats li.warn { border-color: #c62828; color: #c62828; }
svg.chart { width: 100%; max-width: 860px; height: auto; display: block; }
svg text { font: 12px system-ui, sans-serif; fill: #1d1d1f; }
svg .track { fill: #eee; }
table { border-collapse: collapse; margin: .5em 0; } th, td { border: 1px solid #ccc; padding: .2em .6em; }
th { background: #f3f3f3; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.nowrap { white-space: nowrap; }
.id { white-space: nowrap; font-family: ui-monospace, monospace; font-size: 12px; }
pre { white-space: pre-wrap; margin: 0; font-size: 12px; max-width: 48em; }
.legend span { display: inline-block; width: .9em; height: .9em; margin: 0 .3em 0 .8em; vertical-align: -.1em; }
.muted { color: #666; }
@media print { body { margin: 0; font-size: 11px; max-width: none; } svg, tr { break-inside: avoid; }
               h2, h3 { break-after: avoid; }
               * { -webkit-print-color-adjust: exact; print-color-adjust: exact; } }
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"
_BLUE, _GREEN, _AMBER, _RED, _GREY = "#3b6ea8", "#2e7d32", "#d08700", "#c62828", "#9e9e9e"
_LABEL_W, _BAR_W, _ROW_H, _CHART_W = 260, 280, 22, 860
_WARN = ' class="warn"'


def summary_html(summary: Summary, *, title: str = "autograd-grader: class summary") -> str:
    """The summary as one self-contained HTML page that opens offline and prints."""
    sections = [_overview(summary), _scores_section(summary["scores"]), _exercises_section(summary["exercises"]),
                _checks_section(summary["checks"], summary["exercises"]), _problems_section(summary),
                # what to teach again comes before what to fix in the grader or the machine
                _mistakes_section(summary["mistakes"], summary["exercises"]),
                _slowest_section(summary["slowest"]), _grader_errors_section(summary["grader_errors"])]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<h1>{_e(title)}</h1>\n"
            + "\n".join(s for s in sections if s) + "\n</body>\n</html>\n")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(value: float | None) -> str:
    """Points as a person writes them: 10, 6.33, 0.5; n/a where there is no value."""
    return "n/a" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.0f}%"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _rate_colour(rate: float | None) -> str:
    if rate is None:
        return _GREY
    return _GREEN if rate >= 0.8 else _AMBER if rate >= 0.5 else _RED


def _section(heading: str, *body: str) -> str:
    return f"<section>\n<h2>{_e(heading)}</h2>\n" + "\n".join(body) + "\n</section>"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: frozenset[int] = frozenset()) -> str:
    """A small table; cells arrive escaped (some hold markup), headers do not."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>\n" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>"


@dataclass(frozen=True, slots=True)
class _Bar:
    label: str
    fraction: float | None  # the bar's length, 0 to 1; None draws no bar
    text: str  # the numbers, written after the bar
    colour: str = _BLUE
    tip: str = ""  # shown on hover: the full label and details


def _hbars(title: str, bars: Sequence[_Bar]) -> str:
    """A horizontal bar chart: a label, a bar on a grey track and its numbers, one row per bar."""
    height = _ROW_H * len(bars) + 4
    rows = []
    for index, bar in enumerate(bars):
        y, baseline = index * _ROW_H + 5, index * _ROW_H + _ROW_H // 2 + 6
        width = round(_BAR_W * min(max(bar.fraction or 0.0, 0.0), 1.0), 1)
        rows.append(f"<g><title>{_e(bar.tip or bar.label)}</title>"
                    f'<text x="{_LABEL_W - 8}" y="{baseline}" text-anchor="end">{_e(_clip(bar.label))}</text>'
                    f'<rect class="track" x="{_LABEL_W}" y="{y}" width="{_BAR_W}" height="{_ROW_H - 6}"/>'
                    f'<rect x="{_LABEL_W}" y="{y}" width="{width}" height="{_ROW_H - 6}" fill="{bar.colour}"/>'
                    f'<text x="{_LABEL_W + _BAR_W + 8}" y="{baseline}">{_e(bar.text)}</text></g>')
    return (f'<svg class="chart" viewBox="0 0 {_CHART_W} {height}" '
            f'width="{_CHART_W}" height="{height}">\n<title>{_e(title)}</title>\n' + "\n".join(rows) + "\n</svg>")


def _histogram(bins: Sequence[Bin]) -> str:
    """Vertical bars, one per 10% band, the count above each bar and the band below it."""
    top = max((b["count"] for b in bins), default=0) or 1
    slot, plot, left, base = 64, 150, 40, 170
    bars = []
    for index, b in enumerate(bins):
        x, h = left + index * slot, round(plot * b["count"] / top, 1)
        band = f"{b['low']}–{b['high']}%"
        bars.append(f"<g><title>{band}: {_plural(b['count'], 'student')}</title>"
                    f'<rect x="{x + 6}" y="{base - h}" width="{slot - 12}" height="{h}" fill="{_BLUE}"/>'
                    f'<text x="{x + slot // 2}" y="{base - h - 4}" text-anchor="middle">{b["count"]}</text>'
                    f'<text x="{x + slot // 2}" y="{base + 16}" text-anchor="middle">{band}</text></g>')
    width = left + slot * len(bins) + 10
    return (f'<svg class="chart" viewBox="0 0 {width} {base + 44}" '
            f'width="{width}" height="{base + 44}">\n<title>Students per band of the percentage score</title>\n'
            + "\n".join(bars)
            + f'\n<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#555"/>'
            f'\n<text x="{(left + width) // 2}" y="{base + 38}" text-anchor="middle">share of the maximum score'
            "</text>\n</svg>")


def _overview(summary: Summary) -> str:
    counts, scores = summary["counts"], summary["scores"]
    items = [(_plural(counts["students"], "student"), False), (f"{counts['graded']} graded", False),
             (f"{counts['unreadable']} unreadable", counts["unreadable"] > 0),
             (_plural(counts["grader_errors"], "grader error"), counts["grader_errors"] > 0)]
    cards = "".join(f"<li{_WARN if warn else ''}>{_e(text)}</li>" for text, warn in items)
    if scores["mean"] is None:
        return f'<ul class="stats">{cards}</ul>\n<p class="muted">No graded students.</p>'
    percent = f" ({_num(scores['mean_percent'])}%)" if scores["mean_percent"] is not None else ""
    stats = (f"<p>Graded students: mean {_num(scores['mean'])} of {_num(scores['max_score'])} points{percent}, "
             f"median {_num(scores['median'])}, lowest {_num(scores['min'])}, highest {_num(scores['max'])}.</p>")
    return f'<ul class="stats">{cards}</ul>\n{stats}'


def _scores_section(scores: Scores) -> str:
    # Students whose maximum is 0 (every check skipped, or 0-point exercises) have no percentage to chart.
    note = f'<p class="muted">{_plural(scores["unscored"], "graded student")} had no points to score.</p>' \
        if scores["unscored"] else ""
    if not any(b["count"] for b in scores["histogram"]):
        return _section("Scores", '<p class="muted">No graded student has a percentage score to show.</p>', note)
    return _section("Scores", _histogram(scores["histogram"]), note)


def _exercises_section(exercises: Sequence[ExerciseStats]) -> str:
    if not exercises:
        return ""
    means = [_mean_bar(e) for e in exercises]
    full = [_Bar(e["id"], e["full_marks_rate"], f"{e['full_marks']} of {e['graded']} ({_pct(e['full_marks_rate'])})",
                 _rate_colour(e["full_marks_rate"]), f"{e['id']}: {e['title']}") for e in exercises]
    return _section("Exercises", "<h3>Mean score</h3>", _hbars("Mean score per exercise", means),
                    "<h3>Students with full marks</h3>", _hbars("Share of students with full marks", full))


def _mean_bar(exercise: ExerciseStats) -> _Bar:
    rate = _ratio(exercise["mean_score"], exercise["max_points"])
    points = f"{_num(exercise['mean_score'])} / {_num(exercise['max_points'])}"
    text = f"{points} ({_pct(rate)}) · {exercise['graded']} graded"
    return _Bar(exercise["id"], rate, text, _rate_colour(rate), f"{exercise['id']}: {exercise['title']}")


def _ratio(value: float | None, whole: float) -> float | None:
    return value / whole if value is not None and whole > 0 else None


def _legend() -> str:
    parts = [(_GREEN, "80% or more"), (_AMBER, "50–80%"), (_RED, "under 50%"), (_GREY, "never ran")]
    return '<p class="legend muted">Pass rate:' + "".join(
        f'<span style="background:{colour}"></span>{label}' for colour, label in parts) + "</p>"


def _checks_section(checks: Sequence[CheckStats], exercises: Sequence[ExerciseStats]) -> str:
    if not checks:
        return ""
    titles = {e["id"]: e["title"] for e in exercises}
    parts = [_legend()]
    for exercise_id in dict.fromkeys(c["exercise"] for c in checks):  # the summary's order, without repeats
        bars = [_check_bar(c) for c in checks if c["exercise"] == exercise_id]
        heading = f"{exercise_id}: {titles.get(exercise_id, '')}".rstrip(": ")
        parts += [f"<h3>{_e(heading)}</h3>", _hbars(f"Pass rate per check of {exercise_id}", bars)]
    return _section("Checks", *parts)


def _check_bar(check: CheckStats) -> _Bar:
    ran = check["passed"] + check["failed"] + check["error"]
    counts = ((check["error"] - check["not_run"], "error"), (check["not_run"], "not run"),
              (check["skipped"], "skipped"))
    extra = "".join(f", {n} {what}" for n, what in counts if n)
    label = check["check"] + (" (hidden)" if check["visibility"] == "hidden" else "")
    tip = (f"{label}: {check['passed']} passed, {check['failed']} failed, {check['error']} error "
           f"({check['not_run']} never ran), {check['skipped']} skipped")
    return _Bar(label, check["pass_rate"], f"{check['passed']}/{ran} passed ({_pct(check['pass_rate'])}){extra}",
                _rate_colour(check["pass_rate"]), tip)


def _problems_section(summary: Summary) -> str:
    failing, kinds = summary["failing_checks"], summary["error_kinds"]
    if not summary["counts"]["graded"]:
        return ""
    if not failing and not kinds:
        return _section("Most frequent problems", '<p class="muted">None: every check that ran passed.</p>')
    parts = []
    if failing:
        parts += ["<h3>Failing checks</h3>",
                  _hbars("The checks that fail most often", [_failing_bar(f) for f in failing])]
    if kinds:
        bars = [_kind_bar(k, summary["counts"]["graded"]) for k in kinds]
        examples = [[_e(k["kind"]), _e(k["example_student"]), _e(_clip(k["example_problem"], 200))] for k in kinds]
        parts += ["<h3>Error kinds</h3>", _hbars("The most frequent kinds of error", bars),
                  _table(["kind", "for example", "what the report says"], examples)]
    return _section("Most frequent problems", *parts)


def _failing_bar(failing: FailingCheck) -> _Bar:
    label = f"{failing['exercise']}: {failing['check']}"
    text = f"{failing['failing']} of {failing['students']} ({failing['failed']} wrong, {failing['error']} error)"
    tip = f"{label}. For example {failing['example_student']}: {failing['example_problem']}"
    return _Bar(label, _ratio(failing["failing"], failing["students"]), text, _RED, tip)


def _kind_bar(kind: ErrorKind, graded: int) -> _Bar:
    text = f"{_plural(kind['students'], 'student')}, {_plural(kind['checks'], 'check')}"
    tip = f"{kind['kind']}: {kind['example_problem']}"
    return _Bar(kind["kind"], _ratio(kind["students"], graded), text, _AMBER, tip)


def _slowest_section(slowest: Sequence[Slow]) -> str:
    if not slowest:
        return ""
    rows = [[str(i), _e(s["student"]), f"{s['seconds']:.3f}"] for i, s in enumerate(slowest, start=1)]
    return _section("Slowest submissions", _table(["#", "student", "seconds"], rows, frozenset({0, 2})))


def _grader_errors_section(errors: Sequence[GraderErrorRow]) -> str:
    if not errors:
        return ""
    rows = [[_e(g["student"]), f"<pre>{_e(g['error'])}</pre>"] for g in errors]
    return _section("Grader errors (not the students' fault)", _table(["student", "error"], rows))


def _mistakes_section(mistakes: Sequence[Mistake], exercises: Sequence[ExerciseStats]) -> str:
    if not mistakes:
        return ""
    graded = {e["id"]: e["graded"] for e in exercises}
    bars = [_Bar(f"{m['exercise']}: {m['mistake']}", _ratio(m["students"], graded.get(m["exercise"], 0)),
                 f"{_plural(m['students'], 'student')} of {graded.get(m['exercise'], 0)}",
                 _BLUE if m["kind"] == "known-mistake" else _AMBER,
                 f"{m['exercise']}: {m['mistake']} ({m['kind']}), seen in {', '.join(m['checks'])}")
            for m in mistakes]
    legend = (f'<p class="legend muted">How sure:<span style="background:{_BLUE}"></span>a known mistake (behaves '
              f'like one of the exercise\'s mutants)<span style="background:{_AMBER}"></span>a pattern in the '
              "numbers</p>")
    rows = [[f'<span class="nowrap">{_e(m["exercise"])}</span>', f'<span class="id">{_e(m["mistake"])}</span>',
             f'<span class="nowrap">{_e(m["kind"])}</span>', str(m["students"]),
             _e(", ".join(m["checks"][:3])), _e(m["example_student"])] for m in mistakes]
    return _section("Diagnosed mistakes", legend, _hbars("The mistakes most students made", bars),
                    _table(["exercise", "mistake", "kind", "students", "seen in", "for example"], rows,
                           frozenset({3})))
