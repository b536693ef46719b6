"""The report as a page a student reads: colour on a terminal, plain words in a log."""

from __future__ import annotations

import io
from itertools import chain

from rich.console import Console
from rich.text import Text as _RichText

from grader.core.compare import fmt_points
from grader.judge.report import CheckResult, ExerciseResult, Report, exercise_mistakes
from grader.outputs.precision_note import precision_note
from grader.outputs.trace_note import trace_note

#: what a terminal would act on in text a submission chose (its output, its exception messages):
#: escape sequences, other C0 and C1 controls, and the marks that reorder text on screen
_CONTROLS = {
    c: f"\\x{c:02x}" for c in [*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]
}
_CONTROLS.update(
    {c: f"\\u{c:04x}" for c in [0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]}
)


def _text(text: str = "", style: str = "") -> _RichText:
    """rich's Text, with every control character shown
    as an escape instead of sent to the terminal."""
    return _RichText(text.translate(_CONTROLS), style=style)


def _assemble(*parts: str | tuple[str, str]) -> _RichText:
    return _RichText.assemble(
        *[
            p.translate(_CONTROLS) if isinstance(p, str) else (p[0].translate(_CONTROLS), p[1])
            for p in parts
        ]
    )


_STATUS = {
    "passed": ("PASS ", "bold green"),
    "failed": ("FAIL ", "bold red"),
    "error": ("ERROR", "bold magenta"),
    "skipped": ("SKIP ", "yellow"),
}
_SURE = {"known-mistake": "known mistake", "localized": "localized", "pattern": "pattern"}
#: of what the submission printed, on the terminal; the JSON report keeps all that was captured
OUTPUT_LINES, OUTPUT_CHARS = 30, 4096


def render_text(report: Report, *, color: bool = False, width: int = 100) -> str:
    buffer = io.StringIO()
    # force_jupyter=False: in a notebook (grader.course.notebook_check)
    # rich would display each line itself
    console = Console(
        file=buffer,
        force_terminal=color,
        force_jupyter=False,
        no_color=not color,
        width=width,
        highlight=False,
        emoji=False,
        soft_wrap=True,
    )
    console.print(
        _assemble(
            ("autograd-grader ", "bold"),
            report.grader_version,
            " · ",
            (report.submission, "bold"),
            f" · {report.seed_shown}",
        )
    )
    if report.isolation is not None and (
        report.isolation.level != "full" or report.isolation.weaker_limits
    ):
        console.print(
            _text(
                f"  isolation: {report.isolation.level} ({report.isolation.description})",
                style="dim",
            )
        )
    for note in report.notes:
        console.print(_text("  note: " + note, style="dim"))
    for problem in report.problems:
        console.print(_text("  ! " + problem, style="bold red"))
    for item in report.integrity:
        console.print(_text("  ! Integrity: " + item, style="bold red"))
    for exercise in report.exercises:
        _exercise(console, exercise)
    _output(console, report)
    console.print()
    checks = list(chain.from_iterable(e.checks for e in report.exercises))
    passed = sum(c.status == "passed" for c in checks)
    total = sum(c.status != "skipped" for c in checks)
    style = "bold green" if report.exit_code == 0 else "bold red"
    score = f"{fmt_points(report.score)}/{fmt_points(report.max_score)}"
    console.print(
        _assemble(
            ("Score: ", "bold"),
            (score, style),
            hidden_points_note(report),
            f" ({passed} of {total} checks passed)"
            # 0: withheld (a student before release: grader.judge.audience)
            + (f" in {report.seconds:.2f} s" if report.seconds else ""),
        )
    )
    return buffer.getvalue()


def hidden_points_note(report: Report) -> str:
    """What a score leaves out, so that 9/9 is never
    read as full marks when a point is in hidden checks."""
    hidden = report.hidden_points
    if not hidden:
        return ""
    return (
        f" on the public checks; {fmt_points(hidden)} more point{'' if hidden == 1 else 's'} "
        f"{'is' if hidden == 1 else 'are'} in hidden checks run after you submit"
    )


def _exercise(console: Console, exercise: ExerciseResult) -> None:
    console.print()
    console.print(
        _assemble(
            ("Exercise ", "bold"),
            (exercise.id, "bold cyan"),
            f": {exercise.title}",
            f"  ({fmt_points(exercise.score)}/{fmt_points(exercise.max_score)})",
        )
    )
    for problem in exercise.problems:
        console.print(_text("  ! " + problem, style="bold red"))
    width = max((len(c.name) for c in exercise.checks), default=0)
    firsts = repeats(exercise.checks)
    for index, check in enumerate(exercise.checks):
        first = firsts.get(index)
        _check(console, check, width, details=first is None or first == index)
        same = [
            c.name for i, c in enumerate(exercise.checks) if i != index and firsts.get(i) == index
        ]
        if same:
            what = (
                "skipped for the same reason:"
                if check.status == "skipped"
                else f"the same error in {len(same)} more check{'s' if len(same) > 1 else ''}:"
            )
            console.print(_text(f"         {what} {', '.join(same)}", style="dim"))
    _mistakes(console, exercise)


def repeats(checks: tuple[CheckResult, ...]) -> dict[int, int]:
    """For each check that stopped on the same error as another (the same words and the same
    likely mistake, with nothing compared), or was skipped for the same reason, the index of
    the first such check: a stub that raises is shown once, not once per check it stops."""
    first: dict[tuple[str, str, str], int] = {}
    repeats: dict[int, int] = {}
    for index, check in enumerate(checks):
        if check.status not in ("error", "skipped") or not check.problem or check.observations:
            continue
        diagnosis = check.diagnosis
        key = (
            check.status + check.problem,
            "" if diagnosis is None else diagnosis.mistake,
            "" if diagnosis is None else diagnosis.hint,
        )
        repeats[index] = first.setdefault(key, index)
    counts = {at: list(repeats.values()).count(at) for at in set(repeats.values())}
    return {index: at for index, at in repeats.items() if counts[at] > 1}


def _mistakes(console: Console, exercise: ExerciseResult) -> None:
    """What the failed checks add up to: the mistakes named, and how many checks fit none."""
    found, unknown = exercise_mistakes(exercise)
    if not found and not unknown and not exercise.masked:
        return
    console.print()
    if found:
        named = "; ".join(
            f"{mistake} ({_SURE[kind]}, {n} check{'s' if n > 1 else ''})"
            for kind, mistake, n in found
        )
        console.print(_assemble(("  Likely mistakes: ", "bold yellow"), named))
    if unknown:
        console.print(
            _text(
                f"  {unknown} failed check{'s' if unknown > 1 else ''} fit no known mistake or "
                f"pattern: compare expected and got above.",
                style="yellow",
            )
        )
    if exercise.masked:
        console.print(_text(f"  {MASKED_INTRO}", style="bold yellow"))
        for diagnosis in exercise.masked:
            console.print(
                _text(
                    f"    {diagnosis.mistake}: {diagnosis.hint} ({diagnosis.evidence})",
                    style="yellow",
                )
            )


#: what the list of masked mistakes is, in every format
MASKED_INTRO = (
    "Hidden behind these, and found on small probes of each rule with that mistake mended, or in "
    "the code itself:"
)


def _output(console: Console, report: Report) -> None:
    if not report.output.strip():
        return
    output = report.output.rstrip("\n")
    shown = output[:OUTPUT_CHARS]
    lines = shown.split("\n")[:OUTPUT_LINES]
    kept = sum(len(line) + 1 for line in lines) - 1
    console.print()
    total_lines = output.count("\n") + 1
    by_lines = (
        len(lines) < total_lines and kept < OUTPUT_CHARS
    )  # the line cap cut it, not the size cap
    first = f"{len(lines)} lines" if by_lines else _size(kept)
    if report.output_truncated:
        more = (
            f" (the first {first} of the {_size(len(output))} kept; it printed more; --format json "
            "has what was kept)"
        )
    elif kept < len(output):
        more = (
            f" (the first {first} of {f'{total_lines} lines' if by_lines else _size(len(output))}; "
            "--format json has it all)"
        )
    else:
        more = ""
    console.print(_text(f"  Your code printed{more}:", style="bold"))
    for line in lines:
        console.print(_text("  │ " + line, style="dim"))


def _size(chars: int) -> str:
    return f"{chars} characters" if chars < 1024 else f"{chars / 1024:.1f} KiB"


def _check(console: Console, check: CheckResult, width: int, *, details: bool = True) -> None:
    word, style = _STATUS[check.status]
    points = (
        "-"
        if check.status == "skipped"
        else f"{fmt_points(check.score)}/{fmt_points(check.max_score)}"
    )
    console.print(
        _assemble(
            "  ",
            (word, style),
            "  ",
            check.name.ljust(width),
            "  ",
            points,
            ("  (hidden)" if check.visibility == "hidden" else "", "dim"),
        )
    )
    if check.status == "passed" or not details:
        return
    _what_ran(console, check)
    _what_was_wrong(console, check)
    _likely(console, check)


#: where a check's details start, under its name
_INDENT = "         "
#: how sure a diagnosis is, in words
_HOW_SURE = {
    "known-mistake": "a known mistake",
    "localized": "found by running each operation alone",
    "pattern": "a pattern",
}


def _what_ran(console: Console, check: CheckResult) -> None:
    """What the check is about, its inputs and the code it ran."""
    if check.about:
        console.print(_text(_INDENT + check.about, style="italic"))
    if check.inputs:
        inputs = ", ".join(f"{name} = {value}" for name, value in check.inputs)
        console.print(_assemble(_INDENT, ("inputs   ", "bold"), inputs))
    if check.code:
        for i, line in enumerate(check.code.rstrip("\n").split("\n")):
            label = "ran      " if i == 0 else "         "
            console.print(_assemble(_INDENT, (label, "bold"), (line, "cyan")))


def _what_was_wrong(console: Console, check: CheckResult) -> None:
    """Each wrong value, expected and got; else the check's problem."""
    wrong = [o for o in check.observations if not o.ok]
    if not wrong:
        style = "red" if check.status != "skipped" else "yellow"
        console.print(_text(_INDENT + check.problem, style=style))
        return
    label_width = max(len(o.label) for o in wrong)
    for obs in wrong:
        said = obs.problem or f"expected {obs.expected}, got {obs.got}"
        label = obs.label.ljust(label_width)
        console.print(_assemble(_INDENT, (label, "bold"), "  ", (said, "red")))


def _likely(console: Console, check: CheckResult) -> None:
    """The notes on precision and tracing, and the likely mistake."""
    if precision_note(check):
        console.print(_text(_INDENT + precision_note(check), style="yellow"))
    if trace_note(check):
        console.print(_assemble(_INDENT, ("traced   ", "bold yellow"), trace_note(check)))
    diagnosis = check.diagnosis
    if diagnosis is not None and diagnosis.kind != "unknown":
        sure = _HOW_SURE[diagnosis.kind]
        likely = ("likely   ", "bold yellow")
        mistake = (diagnosis.mistake, "bold")
        console.print(_assemble(_INDENT, likely, mistake, f" ({sure}): ", diagnosis.hint))
