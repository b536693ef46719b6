"""How a whole class did, as JSON-ready data (summary.json);
grader.outputs.summary_html draws it as one offline page.

One definition of the class's mean (and median, range, histogram) everywhere, the CLI's
included: over every student the gradebook gives a number, so graded, unreadable and
missing students (the last two at 0), and never a grader error, whose cell stays blank.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from itertools import chain

from grader.judge.report import CheckResult, ExerciseResult
from grader.outputs.attention import needs_attention
from grader.outputs.error_kinds import check_error, error_kinds
from grader.outputs.layout import feedback_link
from grader.outputs.students import ExerciseColumn, StudentReport
from grader.outputs.summary_schema import (
    Bin,
    CheckStats,
    Counts,
    ExerciseStats,
    FailingCheck,
    GraderErrorRow,
    Mistake,
    Scores,
    Slow,
    StudentScore,
    Summary,
)

SUMMARY_VERSION = "2.1"
#: the histogram's bins: 0-10%, ..., 90-100% (100% goes in the last)
BINS = 10
#: how many failing checks, error kinds and slow submissions the summary names
TOP = 10
#: scores are rounded to 6 places, so full marks is "within a millionth of the maximum"
_EPS = 1e-6


def class_summary(
    rows: Sequence[StudentReport],
    columns: Sequence[ExerciseColumn],
    *,
    not_on_roster: Sequence[str] = (),
    skipped: Sequence[str] = (),
    marked_late: Sequence[str] = (),
) -> Summary:
    """What the instructor and CI want to know about a
    graded class, as plain data; no clocks, fixed order."""
    ordered = sorted(
        rows, key=lambda r: (r.student.id, r.student.submission)
    )  # input order must not matter
    graded = [r for r in ordered if r.outcome == "graded"]
    zeros = [r for r in ordered if r.outcome in ("unreadable", "missing")]
    exercises = _exercise_columns(graded, columns)
    by_check = _results_by_check(graded, exercises)
    return Summary(
        version=SUMMARY_VERSION,
        counts=Counts(
            students=len(ordered),
            graded=len(graded),
            unreadable=sum(r.outcome == "unreadable" for r in ordered),
            missing=sum(r.outcome == "missing" for r in ordered),
            grader_errors=sum(r.outcome == "grader-error" for r in ordered),
            not_on_roster=len(not_on_roster),
        ),
        attention=needs_attention(
            ordered, sorted(not_on_roster), sorted(skipped), frozenset(marked_late)
        ),
        scores=_scores(ordered, round(sum(c.points for c in exercises), 6)),
        exercises=[
            _exercise_stats(
                c,
                [
                    e
                    for e in chain.from_iterable(r.report.exercises for r in graded)
                    if e.id == c.id
                ],
                sum(_zero_in(c, r) for r in zeros),
            )
            for c in exercises
        ],
        checks=[_check_stats(key, results) for key, results in by_check.items()],
        failing_checks=_failing_checks(by_check),
        error_kinds=error_kinds(graded),
        slowest=sorted(
            (
                Slow(student=r.student.id, name=r.student.name, seconds=round(r.report.seconds, 3))
                for r in graded
            ),
            key=lambda s: -s["seconds"],
        )[:TOP],  # stable: equal times stay in student order
        grader_errors=[
            GraderErrorRow(student=r.student.id, name=r.student.name, error=r.error)
            for r in ordered
            if r.outcome == "grader-error"
        ],
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
    return [
        Mistake(
            exercise=k[0],
            mistake=k[1],
            kind=k[2],
            students=len(students[k]),
            checks=[name for name, _ in checks[k].most_common()],
            example_student=students[k][0],
        )
        for k in ordered[:TOP]
    ]


def _exercise_columns(
    graded: Sequence[StudentReport], columns: Sequence[ExerciseColumn]
) -> list[ExerciseColumn]:
    """The gradebook's columns, then any exercise a report
    has that they lack (by id), so nothing is dropped."""
    known = {c.id for c in columns}
    extra: dict[str, ExerciseColumn] = {}
    for result in chain.from_iterable(r.report.exercises for r in graded):
        if result.id in known:
            continue
        points = max(result.max_score, extra[result.id].points if result.id in extra else 0.0)
        extra[result.id] = ExerciseColumn(result.id, result.title, points)
    return [*columns, *(extra[i] for i in sorted(extra))]


def _percent(score: float, max_score: float) -> float | None:
    # Rounded before binning, so that 3/10 lands in 30-40% and not, by float error, in 20-30%.
    return round(100 * score / max_score, 6) if max_score > 0 else None


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 6) if values else None


def score_of(row: StudentReport, total: float) -> tuple[float, float] | None:
    """(points, out of) as the gradebook has them: 0 of the total for unreadable
    and missing; None for a grader error, whose cell stays blank, and for a
    student excused. The one definition every statistic of the class uses."""
    if row.outcome == "graded":
        return row.report.score, row.report.max_score
    if row.outcome in ("unreadable", "missing"):
        return 0.0, total
    return None


def _student_score(row: StudentReport, total: float) -> StudentScore:
    report = row.report
    scored = score_of(row, total)
    score, max_score = scored if scored is not None else (None, None)
    percent = _percent(score, max_score) if score is not None and max_score is not None else None
    mistakes: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for exercise in report.exercises:
        for check in exercise.checks:
            if check.diagnosis is not None and check.diagnosis.kind != "unknown":
                mistakes[check.diagnosis.mistake] += 1
            if (
                row.outcome == "graded"
                and check.status in ("failed", "error")
                and (found := check_error(check, exercise, report)) is not None
            ):
                errors[found[0]] += 1
    return StudentScore(
        student=row.student.id,
        name=row.student.name,
        outcome=row.outcome,
        score=score,
        max_score=max_score,
        percent=percent,
        seconds=round(report.seconds, 3),
        file=report.submission if row.outcome in ("graded", "grader-error") else "",
        mistakes=[m for m, _ in mistakes.most_common()],
        errors=[e for e, _ in errors.most_common()],
        problem=report.problems[0] if report.problems else "",
        link=feedback_link(row.student),
    )


def _scores(rows: Sequence[StudentReport], total: float) -> Scores:
    scored = [s for r in rows if (s := score_of(r, total)) is not None]
    points = [score for score, _ in scored]
    percents = [p for score, out_of in scored if (p := _percent(score, out_of)) is not None]
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
        scored=len(scored),
        unscored=len(scored) - len(percents),
        histogram=[Bin(low=i * width, high=(i + 1) * width, count=n) for i, n in enumerate(counts)],
        students=[_student_score(r, total) for r in rows],
    )


def _full_marks(result: ExerciseResult) -> bool:
    return result.max_score > 0 and result.score >= result.max_score - _EPS


def _zero_in(column: ExerciseColumn, row: StudentReport) -> bool:
    """Whether the gradebook gives this unreadable or missing student
    0 in the column: in each exercise they were to answer, or in all
    of them where that is unknown (grader.outputs.formats.gradebook)."""
    return not row.report.exercises or any(e.id == column.id for e in row.report.exercises)


def _exercise_stats(
    column: ExerciseColumn, results: Sequence[ExerciseResult], zeros: int
) -> ExerciseStats:
    """Over the students the gradebook scores in this column, as the
    class's mean is: `zeros` are the unreadable and missing ones, at 0."""
    scored = [r for r in results if r.max_score > 0]
    full = sum(_full_marks(r) for r in scored)
    percents = [p for r in scored if (p := _percent(r.score, r.max_score)) is not None]
    return ExerciseStats(
        id=column.id,
        title=column.title,
        max_points=column.points,
        graded=len(results),
        scored=len(results) + zeros,
        mean_score=_mean([*(r.score for r in results), *[0.0] * zeros]),
        mean_percent=_mean([*percents, *[0.0] * zeros]) if percents or column.points > 0 else None,
        full_marks=full,
        full_marks_rate=round(full / (len(scored) + zeros), 6) if scored or zeros else None,
    )


#: (exercise id, check name) -> each graded student's result for it, by student id
ByCheck = dict[tuple[str, str], list[tuple[str, CheckResult]]]


def _results_by_check(
    graded: Sequence[StudentReport], columns: Sequence[ExerciseColumn]
) -> ByCheck:
    """Exercise by exercise in column order; checks
    in the order the reports list them (the spec's)."""
    by_check: ByCheck = {}
    for column in columns:
        for row in graded:
            for result in (e for e in row.report.exercises if e.id == column.id):
                for check in result.checks:
                    by_check.setdefault((column.id, check.name), []).append((row.student.id, check))
    return by_check


def _never_ran(check: CheckResult) -> bool:
    # The report has no flag for it: such a check is an error
    # whose problem says "Not run: ..." (grader.check).
    return check.status == "error" and check.problem.startswith("Not run:")


def _check_stats(key: tuple[str, str], results: Sequence[tuple[str, CheckResult]]) -> CheckStats:
    count = {
        status: sum(c.status == status for _, c in results)
        for status in ("passed", "failed", "error")
    }
    ran = sum(count.values())
    return CheckStats(
        exercise=key[0],
        check=key[1],
        visibility=results[0][1].visibility,
        passed=count["passed"],
        failed=count["failed"],
        error=count["error"],
        not_run=sum(_never_ran(c) for _, c in results),
        skipped=len(results) - ran,
        pass_rate=round(count["passed"] / ran, 6) if ran else None,
    )


def _failing_checks(by_check: ByCheck) -> list[FailingCheck]:
    failing = []
    for (exercise, name), results in by_check.items():
        bad = [
            (student, c)
            for student, c in results
            if c.status in ("failed", "error") and not _never_ran(c)
        ]
        if bad:
            failed = sum(c.status == "failed" for _, c in bad)
            failing.append(
                FailingCheck(
                    exercise=exercise,
                    check=name,
                    failing=len(bad),
                    failed=failed,
                    error=len(bad) - failed,
                    students=sum(c.status != "skipped" for _, c in results),
                    example_student=bad[0][0],
                    example_problem=bad[0][1].problem,
                )
            )
    # sorted() is stable: equal counts keep the exercise and spec order.
    return sorted(failing, key=lambda f: -f["failing"])[:TOP]
