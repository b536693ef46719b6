"""Diagnosis as declared passes: each kind of engine's ordered list, run over one Evidence.

A pass reads the evidence and the result so far, and gives the result back with the checks it
names (or the names it withdraws). The lists below are the whole of what a diagnosis does, in
order, as nbgrader lists its preprocessors:

- known-mistakes: a known mistake (a mutant) that behaves as the student's code does;
- patterns: a pattern of the numbers (half, negated, a ratio on every wrong check), or an error
  that states its cause once the syntax tree confirms it;
- rule-breaks: right values scored down for a broken rule name the rule;
- sign-slips: the reference engine with one slope's sign flipped gives every value;
- nothing-known: each failed check still unnamed says that nothing known matches;
- the tensor passes: array facts and the reference with one rule changed, then the rules that
  keep a name only where the whole submission backs it (grader.judge.tensor);
- exercise: the passes an exercise declares in its own folder (its diagnosis.py,
  grader.judge.diagnose.exercise_code), such as manual backprop's chain;
- localized: a fault localized in one rule replaces the symptoms it explains;
- syntax: what the syntax tree says of a whole check (a method its instances hide);
- unreached: methods no check got as far as, named as masked mistakes;
- withheld: a hidden check keeps a name and a hint, never its evidence.

`diagnose(evidence)` runs them; `diagnose_with_public(evidence)` also runs them on the evidence
a student may know before the deadline (Evidence.visible_to) and keeps what differs.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from grader.core.engines import Engine
from grader.judge.audience import Audience
from grader.judge.diagnose.blame import name_localized
from grader.judge.diagnose.code_names import name_from_code
from grader.judge.diagnose.evidence import Evidence
from grader.judge.diagnose.exercise_code import exercise_code
from grader.judge.diagnose.known_mistakes import name_known
from grader.judge.diagnose.patterns import NOTHING, name_patterns, named_pattern
from grader.judge.diagnose.sign_slips import name_slips
from grader.judge.diagnose.unreached import unreached_missing
from grader.judge.report import CheckResult, Diagnosis, ExerciseResult


@dataclass(frozen=True, slots=True)
class Pass:
    """One step of a diagnosis: its name, and what it does to the result."""

    name: str
    run: Callable[[Evidence, ExerciseResult], ExerciseResult]


def _rule_breaks(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """Right values, not scored for a broken rule (of the file, or of what ran): the rule is
    the mistake, where no known mistake breaking the same rules fits."""
    checks = list(result.checks)
    for index in sorted(evidence.failing):
        found = checks[index].diagnosis
        if found is not None and found.kind == "known-mistake":
            continue
        broken = (*sorted(evidence.rules), *evidence.broken(index))
        if broken and evidence.all_right(index):
            evidence_text = f"the values are right, but: {'; '.join(broken)}"
            diagnosis = named_pattern("breaks-a-rule", evidence_text)
            checks[index] = dataclasses.replace(checks[index], diagnosis=diagnosis)
    return dataclasses.replace(result, checks=tuple(checks))


def _nothing_known(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """Every failed check that no pass named says so: nothing known matches."""
    checks = list(result.checks)
    for index in evidence.failing:
        if checks[index].diagnosis is None:
            checks[index] = dataclasses.replace(checks[index], diagnosis=NOTHING)
    return dataclasses.replace(result, checks=tuple(checks))


def _withheld(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """A hidden check keeps a diagnosis's name and hint, not its evidence (what the student's
    run or the expected values were); a check failed by precision names nothing."""
    checks = []
    for check in result.checks:
        if check.cause.kind == "precision":
            check = dataclasses.replace(check, diagnosis=None)
        elif check.visibility == "hidden" and check.diagnosis is not None:
            withheld = dataclasses.replace(
                check.diagnosis, evidence="withheld: this check is hidden"
            )
            check = dataclasses.replace(check, diagnosis=withheld)
        checks.append(check)
    return dataclasses.replace(result, checks=tuple(checks))


def _exercise_passes(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The passes the exercise declares in its own folder, in their order."""
    for run in exercise_code(evidence.exercise).passes:
        result = run(evidence, result)
    return result


def _tensor(name: str) -> Pass:
    """A pass of grader.judge.tensor, which imports numpy: tensor exercises only."""

    def run(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
        from grader.judge.tensor.tensor_patterns import TENSOR_PASSES

        return TENSOR_PASSES[name](evidence, result)

    return Pass(name, run)


KNOWN = Pass("known-mistakes", name_known)
PATTERNS = Pass("patterns", name_patterns)
RULE_BREAKS = Pass("rule-breaks", _rule_breaks)
SIGN_SLIPS = Pass("sign-slips", name_slips)
NOTHING_KNOWN = Pass("nothing-known", _nothing_known)
EXERCISE = Pass("exercise", _exercise_passes)
LOCALIZED = Pass("localized", name_localized)
SYNTAX = Pass("syntax", name_from_code)
UNREACHED = Pass("unreached", unreached_missing)
WITHHELD = Pass("withheld", _withheld)
#: what every kind names first: what the runs show, check by check
NAMING = (KNOWN, PATTERNS, RULE_BREAKS)
#: each kind of engine's passes, in order
PASSES: Mapping[Engine, tuple[Pass, ...]] = {
    "scalar": (
        *NAMING,
        SIGN_SLIPS,
        NOTHING_KNOWN,
        EXERCISE,
        LOCALIZED,
        SYNTAX,
        UNREACHED,
        WITHHELD,
    ),
    "tensor": (
        *NAMING,
        NOTHING_KNOWN,
        _tensor("errors-alone"),
        _tensor("arrays"),
        _tensor("nan-alone"),
        _tensor("ratios-alone"),
        _tensor("placeholders"),
        EXERCISE,
        SYNTAX,
        WITHHELD,
    ),
    "torch": (*NAMING, NOTHING_KNOWN, EXERCISE, SYNTAX, WITHHELD),
    "library": (*NAMING, NOTHING_KNOWN, EXERCISE, SYNTAX, WITHHELD),
}

#: (exercise, pass, check, the diagnosis before, after) for each name a pass changed in the full
#: diagnosis (the instructor's), while `tracing` (benchmarks/passes.py)
Change = tuple[str, str, str, Diagnosis | None, Diagnosis | None]
_TRACE: contextvars.ContextVar[list[Change] | None] = contextvars.ContextVar("trace", default=None)


@contextlib.contextmanager
def tracing() -> Iterator[list[Change]]:
    """Every change each pass makes to a diagnosis, in this context."""
    changes: list[Change] = []
    token = _TRACE.set(changes)
    try:
        yield changes
    finally:
        _TRACE.reset(token)


def diagnose(evidence: Evidence) -> ExerciseResult:
    """The exercise's checks, each failed one with a diagnosis: its kind's passes, in order.

    The grader's own bug costs the diagnoses, never the report: every failed check then says
    that it could not be diagnosed, and why."""
    result = evidence.result
    try:
        for step in PASSES[evidence.exercise.engine]:
            done = step.run(evidence, result)
            _trace(evidence, step, result, done)
            result = done
    except Exception as exc:  # noqa: BLE001 - a bug of ours: say so on the checks
        return _undiagnosed(evidence.result, exc)
    return result


def diagnose_with_public(evidence: Evidence) -> ExerciseResult:
    """The full diagnosis (every check's evidence), each public check carrying the diagnosis on
    the public checks' evidence alone where that differs, and the exercise its masked mistakes so.

    Over every check, hidden ones included, a public check's diagnosis says something of the
    hidden verdicts: a student who reads it before the deadline learns one bit of the hidden run
    (submissions/hostile/diagnosis_reads_the_hidden_verdict.py). What that student reads is the
    same passes on the evidence they may know; the runs that cost (the known mistakes', the
    localization) are made once for both."""
    full = diagnose(evidence)
    narrower = evidence.visible_to(Audience.STUDENT_BEFORE_RELEASE)
    if narrower is evidence:
        return full
    public = diagnose(narrower)
    shown = iter(public.checks)
    checks = []
    for check in full.checks:
        if check.visibility != "hidden":
            alone = next(shown).diagnosis
            # a failed check always has one; never None where the full one names something
            if alone != check.diagnosis:
                public_diagnosis = NOTHING if alone is None else alone
                check = dataclasses.replace(check, public_diagnosis=public_diagnosis)
        checks.append(check)
    masked = None if public.masked == full.masked else public.masked
    return dataclasses.replace(full, checks=tuple(checks), public_masked=masked)


def _trace(evidence: Evidence, step: Pass, before: ExerciseResult, after: ExerciseResult) -> None:
    changes = _TRACE.get()
    if changes is None or evidence.audience is not Audience.INSTRUCTOR:
        return
    exercise = evidence.exercise.id
    for old, new in zip(before.checks, after.checks, strict=True):
        if old.diagnosis != new.diagnosis:
            changes.append((exercise, step.name, new.name, old.diagnosis, new.diagnosis))
    for masked in after.masked:
        if masked not in before.masked:
            changes.append((exercise, step.name, "(masked)", None, masked))


def _undiagnosed(result: ExerciseResult, exc: Exception) -> ExerciseResult:
    failed = Diagnosis(
        kind="unknown",
        mistake="",
        hint="",
        evidence=f"the grader could not diagnose this check ({type(exc).__name__}: {exc})"[:300],
    )
    checks: list[CheckResult] = []
    for check in result.checks:
        if check.status in ("failed", "error"):
            check = dataclasses.replace(check, diagnosis=failed)
        checks.append(check)
    return dataclasses.replace(result, checks=tuple(checks))
