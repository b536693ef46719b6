"""The numbers a lesson prints, proved: each comes out of
the exercise's reference, to the digits the lesson shows."""

from __future__ import annotations

from fractions import Fraction

from grader.core.compare import show
from grader.core.exercise import Exercise
from grader.core.values import Array, ErrorInfo, Number, Seq, Text, Value
from grader.judge.oracle import expected_values
from grader.run.inputs import draw_inputs

#: a printed number is reproduced when it matches to the last digit the lesson shows
PRINTED_SLACK = 0.5


def printed_numbers(exercise: Exercise) -> list[tuple[bool, str]]:
    """Each number a lesson prints must come out of
    the reference, to the digits the lesson shows."""
    findings: list[tuple[bool, str]] = []
    printing = [(i, p) for i, p in enumerate(exercise.probes) if p.printed]
    if not printing:
        return findings
    expected = expected_values(exercise, draw_inputs(exercise, 0))
    for index, probe in printing:
        if any(spec.kind != "literal" and not spec.values for spec in probe.inputs):
            findings.append(
                (False, f"probe '{probe.name}' lists printed numbers but has random inputs")
            )
            continue
        observations = expected[index].observations
        for label, printed in probe.printed:
            got = None if isinstance(observations, ErrorInfo) else observations.get(label)
            shown = printed if isinstance(printed, str) else ", ".join(printed)
            if got is not None and _reproduces(got, printed):
                findings.append(
                    (True, f"the lesson's {label} = {shown} is reproduced ({show(got)})")
                )
            else:
                findings.append(
                    (
                        False,
                        f"the lesson's {label} = {shown} is not reproduced: the reference "
                        f"gives {show(got) if got is not None else 'nothing'}",
                    )
                )
    return findings


def _reproduces(got: Value, printed: str | tuple[str, ...]) -> bool:
    if isinstance(printed, tuple):
        return isinstance(got, Seq) and got.items == tuple(Text(t) for t in printed)
    number = _as_printed(printed)
    if number is None:
        return got == Text(printed)
    want, slack = number
    value = (
        got.value
        if isinstance(got, Number)
        else got.data[0]
        if isinstance(got, Array) and got.shape == ()
        else None
    )
    return value is not None and abs(value - want) <= slack


def _as_printed(text: str) -> tuple[float, float] | None:
    """The number a lesson printed, and how far off it
    may be given the digits it shows; None for text."""
    try:
        if "/" in text:  # an exact fraction such as 4/9
            return float(Fraction(text)), 1e-12
        number = float(text)
    except (ValueError, ZeroDivisionError):
        return None
    decimals = len(text.partition(".")[2]) if "." in text else 0
    return number, PRINTED_SLACK * 10.0**-decimals
