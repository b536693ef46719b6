"""What a check that failed by precision alone tells its student, in
every format (grader.judge.check's cause "precision": every wrong
value is within what float32 arithmetic gives at the check's inputs)."""

from __future__ import annotations

from grader.judge.report import CheckResult


def precision_note(check: CheckResult) -> str:
    """The sentence for a check whose cause is precision; "" for any other."""
    if check.cause.kind != "precision":
        return ""
    difference, _, allowed = check.cause.detail.partition(" ")
    if (
        not difference or not allowed
    ):  # a hidden check keeps no numbers: they would tell what it expects
        return (
            "Its values differ from the expected ones by no more than float32 arithmetic gives "
            "there: are your tensors float32? This exercise asks for float64 (dtype=torch.float64)."
        )
    return (
        f"Your values differ from the expected ones by {difference} (relative), more than the "
        f"{allowed} this check allows, but by no more than float32 arithmetic gives here: are your "
        "tensors float32? This exercise asks for float64 (dtype=torch.float64)."
    )


def with_precision_note(text: str, check: CheckResult) -> str:
    """`text`, and the precision sentence after it where the check has one."""
    note = precision_note(check)
    return f"{text} {note}".strip() if note else text
