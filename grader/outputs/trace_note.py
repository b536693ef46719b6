"""What a failed integration check of a library course tells its student
about the op it is traced to (grader.judge.library.trace), in every format."""

from __future__ import annotations

from grader.judge.report import CheckResult


def trace_note(check: CheckResult) -> str:
    """The sentence for a check traced to an op; "" for any other."""
    trace = check.traced
    if trace is None:
        return ""
    own = f" Its own checks failed too ({'; '.join(trace.checks)})." if trace.checks else ""
    if trace.how == "value":
        return (
            f"Traced to {trace.ops[0]}: the first wrong value in this check came from it, given "
            f"inputs your code computed.{own} Fix {trace.ops[0]} first."
        )
    ops = _joined(trace.ops)
    return (
        f"This check runs your code alone and used {ops}, whose own checks failed "
        f"({'; '.join(trace.checks)}): fix {'it' if len(trace.ops) == 1 else 'them'} first."
    )


def with_trace_note(text: str, check: CheckResult) -> str:
    """`text`, and the trace's sentence after it where the check has one."""
    note = trace_note(check)
    return f"{text} {note}".strip() if note else text


def _joined(names: tuple[str, ...]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]
