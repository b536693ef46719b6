"""Name the likely mistake behind a failed check: a known mistake (a mutant it behaves like), or a pattern.

A known mistake is claimed only when every observation of the check matches what that mutant gave on
the same inputs, and the mutant is wrong there too. Otherwise the numbers are compared with the
expected ones for the patterns of research/autograd-mistakes.md section 6 (all zero, half, double,
negated, exchanged, scaled by an input or by N, the wrong shape), then with the reference engine
with one slope's sign flipped (grader.slips). Otherwise the check says that nothing known matches; a
diagnosis never claims more than it found.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from grader.compare import compare, fmt
from grader.hints import known_error
from grader.inputs import Inputs, TensorInput
from grader.numeric import Tolerance
from grader.observed import GroupRun, ProbeRun
from grader.oracle import Expected
from grader.report import CheckResult, Diagnosis, ExerciseResult
from grader.slips import SlipRun, Slope
from grader.spec import Exercise, Mutant
from grader.values import Array, ErrorInfo, Number, Value


@dataclass(frozen=True, slots=True)
class MutantRun:
    """What one known mistake gave on the exercise's probes, and which source rules it breaks."""

    mutant: Mutant
    #: None when it could not be run
    run: GroupRun | None
    rules: frozenset[str] = frozenset()


MutantRuns = Sequence[MutantRun]
_RATIO = 1e-6  # how close a ratio must come to 1/2, 2, -1, k... to count as that


def diagnose_exercise(exercise: Exercise, result: ExerciseResult, inputs: tuple[Inputs, ...],
                      expected: tuple[Expected, ...], runs: Mapping[str, GroupRun],
                      mutants: MutantRuns, rules: frozenset[str] = frozenset(),
                      slips: Sequence[SlipRun] = ()) -> ExerciseResult:
    """The exercise's checks, each failed one with a diagnosis.

    `runs`: the student's, by device; `rules`: the source rules the student's file breaks. A known
    mistake is named on a check only when it fits the whole submission: the student fails every check
    that mistake fails (a student who made it would), and, where the match is only an exception, the
    mistake raises it wherever the student does. `slips`: the reference engine with one slope's sign
    flipped (grader.slips), named where no known mistake or pattern is and every value of the check
    matches one.
    """
    try:
        return _diagnose(exercise, result, inputs, expected, runs, mutants, rules, slips)
    except Exception as exc:  # noqa: BLE001 - the grader's own bug costs the diagnoses, never the report
        return _undiagnosed(result, exc)


def _undiagnosed(result: ExerciseResult, exc: Exception) -> ExerciseResult:
    """Every failed check says that it could not be diagnosed, and why, for whoever reads the grader's bug."""
    failed = Diagnosis(kind="unknown", mistake="", hint="",
                       evidence=f"the grader could not diagnose this check ({type(exc).__name__}: {exc})"[:300])
    return dataclasses.replace(result, checks=tuple(
        dataclasses.replace(c, diagnosis=failed) if c.status in ("failed", "error") else c for c in result.checks))


def _diagnose(exercise: Exercise, result: ExerciseResult, inputs: tuple[Inputs, ...],
              expected: tuple[Expected, ...], runs: Mapping[str, GroupRun], mutants: MutantRuns,
              rules: frozenset[str], slips: Sequence[SlipRun]) -> ExerciseResult:
    located = {i: found for i, check in enumerate(result.checks)
               if check.status != "skipped" and (found := _located(exercise, check, runs)) is not None}
    failing = {i for i, check in enumerate(result.checks) if check.status in ("failed", "error") and i in located}
    fits = [m for m in mutants if _mutant_fails(m, located, expected, exercise, result) <= failing]
    matches: dict[int, list[Mutant]] = {}
    for index in failing:
        probe_index, run = located[index]
        tol = _tolerance(exercise, result.checks[index], probe_index)
        if rules and _right(run, probe_index, expected[probe_index], tol):
            # Right numbers, not scored for a broken rule: the mistake is the rule's, as in a mutant that breaks
            # the same rules.
            matches[index] = [m.mutant for m in mutants if m.rules == rules]
            continue
        matches[index] = [m.mutant for m in fits
                          if _behaves_like(run, m.run, probe_index, expected[probe_index], tol)
                          and (_strong(run, probe_index) or _raises_wherever(m, run, located, failing))]
    # Where a check fits several mutants, the one that fits the most checks of this submission wins.
    support = Counter(m.mistake for found in matches.values() for m in found)
    patterns = _consistent_patterns(exercise, result, located, failing, expected, inputs, matches)
    unexplained = failing - {i for i, found in matches.items() if found} - set(patterns)
    slipped = _slips(exercise, result, located, unexplained, expected, slips)
    checks = list(result.checks)
    for index in sorted(failing):
        probe_index, run = located[index]
        check = checks[index]
        if matches.get(index):
            diagnosis = _known(matches[index], support)
        elif rules and _right(run, probe_index, expected[probe_index], _tolerance(exercise, check, probe_index)):
            diagnosis = _diagnosis("breaks-a-rule", f"the values are right, but the file breaks: "
                                                    f"{'; '.join(sorted(rules))}")
        else:
            diagnosis = patterns.get(index, slipped.get(index, _NOTHING))
        checks[index] = dataclasses.replace(check, diagnosis=diagnosis)
    # ---- hook: tensor exercises' own patterns and backward chains (issue 17; grader/tensor_patterns.py) ----
    if exercise.engine == "tensor":
        from grader import tensor_patterns  # numpy and the tensor reference, for tensor exercises only

        checks = tensor_patterns.refine(exercise, checks, located, failing, expected, inputs)
    # ---- end of the hook ----
    return dataclasses.replace(result, checks=tuple(checks))


_NOTHING = Diagnosis(kind="unknown", mistake="", hint="", evidence="no known mistake or pattern matches")


def _mutant_fails(mutant: MutantRun, located: Mapping[int, tuple[int, GroupRun]], expected: tuple[Expected, ...],
                  exercise: Exercise, result: ExerciseResult) -> set[int]:
    """The checks this mistake fails, on the CPU run of the mutant."""
    if mutant.run is None:
        return set(located)
    failed = set()
    for index, (probe_index, _) in located.items():
        got = mutant.run.probes[probe_index]
        want = expected[probe_index]
        tol = _tolerance(exercise, result.checks[index], probe_index)
        if got is None or not _passes(got, want, exercise.probes[probe_index].raises is not None, tol):
            failed.add(index)
    return failed


def _passes(got: ProbeRun, want: Expected, raises: bool, tol: Tolerance) -> bool:
    if raises:
        return got.error is not None and isinstance(want.observations, ErrorInfo) and \
            _same_error(got.error, want.observations)
    if got.error is not None or got.observations is None or isinstance(want.observations, ErrorInfo):
        return False
    return all(compare(value, got.observations.get(label, _MISSING), tol) is None
               for label, value in want.observations.items())


def _passes_on(run: GroupRun, index: int, want: Expected, tol: Tolerance) -> bool:
    got = run.probes[index]
    return got is not None and _passes(got, want, isinstance(want.observations, ErrorInfo), tol)


def _strong(run: GroupRun, index: int) -> bool:
    """Numbers matched, not just an exception or a text, which many different mistakes share."""
    got = run.probes[index]
    return got is not None and got.observations is not None and \
        any(isinstance(v, (Number, Array)) for v in got.observations.values())


def _raises_wherever(mutant: MutantRun, run: GroupRun, located: Mapping[int, tuple[int, GroupRun]],
                     failing: set[int]) -> bool:
    """Every check where the student raised an error, the mutant raised the same one."""
    for index in failing:
        probe_index, _ = located[index]
        got = run.probes[probe_index]
        if got is None or got.error is None:
            continue
        theirs = None if mutant.run is None else mutant.run.probes[probe_index]
        if theirs is None or theirs.error is None or not _same_error(got.error, theirs.error):
            return False
    return True


def _consistent_patterns(exercise: Exercise, result: ExerciseResult, located: Mapping[int, tuple[int, GroupRun]],
                         failing: set[int], expected: tuple[Expected, ...], inputs: tuple[Inputs, ...],
                         matches: Mapping[int, list[Mutant]]) -> dict[int, Diagnosis]:
    """Patterns for the checks no known mistake explains.

    A ratio (half, double, negated...) can hold on one check by chance, so it is named only when every
    numerically wrong check of the exercise shows the same one. A wrong shape, a known error and two
    exchanged values are facts of their own check, named where they occur.
    """
    found: dict[int, Diagnosis] = {}
    ratios: dict[int, Diagnosis | None] = {}
    for index in sorted(failing):
        if matches.get(index):
            continue
        probe_index, run = located[index]
        diagnosis = _pattern(run.probes[probe_index], expected[probe_index], inputs[probe_index],
                             _tolerance(exercise, result.checks[index], probe_index))
        if diagnosis.mistake in _RATIOS:
            ratios[index] = diagnosis
        elif diagnosis.kind != "unknown":
            found[index] = diagnosis
        elif _strong(run, probe_index):
            ratios[index] = None  # numbers, but no ratio: no ratio pattern can hold for the whole exercise
    kinds = {d.mistake if d is not None else None for d in ratios.values()}
    if len(kinds) == 1 and None not in kinds:
        found.update({i: d for i, d in ratios.items() if d is not None})
    return found


def _slips(exercise: Exercise, result: ExerciseResult, located: Mapping[int, tuple[int, GroupRun]],
           unexplained: set[int], expected: tuple[Expected, ...], slips: Sequence[SlipRun]) -> dict[int, Diagnosis]:
    """A sign slip in one rule, for each check where every value is what that slip gives (and wrong).

    Where several slips give the same values, the one the rest of the submission agrees with most is
    named: first the one that fails fewest of the checks the student passes (a student with that slip
    would fail those too), then the one that fits the most failed checks; a tie names them all, as one of.
    """
    matches: dict[int, list[SlipRun]] = {}
    for index in sorted(unexplained):
        probe_index, run = located[index]
        want = expected[probe_index]
        if not _strong(run, probe_index) or isinstance(want.observations, ErrorInfo):
            continue
        tol = _tolerance(exercise, result.checks[index], probe_index)
        matches[index] = [s for s in slips if _behaves_like(run, s.run, probe_index, want, tol)]
    support = Counter((s.slope, s.shared) for found in matches.values() for s in found)
    passed = [located[i] + (i,) for i, check in enumerate(result.checks) if check.status == "passed" and i in located]

    def contradictions(slip: SlipRun) -> int:
        return sum(1 for probe_index, _, index in passed
                   if not _passes_on(slip.run, probe_index, expected[probe_index],
                                     _tolerance(exercise, result.checks[index], probe_index)))

    rank = {(s.slope, s.shared): (-contradictions(s), support[(s.slope, s.shared)])
            for found in matches.values() for s in found}
    found: dict[int, Diagnosis] = {}
    for index, candidates in matches.items():
        if not candidates:
            continue
        best = max(rank[(s.slope, s.shared)] for s in candidates)
        # one slip per slope: where both shapes of engine fit equally, the slope is what matters
        by_slope: dict[Slope, SlipRun] = {}
        for s in candidates:
            if rank[(s.slope, s.shared)] == best:
                by_slope.setdefault(s.slope, s)
        top = list(by_slope.values())
        flipped = " or ".join(t.evidence for t in top)
        found[index] = Diagnosis(
            kind="pattern", mistake="negated", hint=" / ".join(t.slope.hint for t in top),
            evidence=f"every value matches the reference engine with the sign of {flipped} flipped"
            if len(top) == 1 else f"every value matches the reference engine with the sign of one of {flipped} "
            "flipped")
    return found


_RATIOS = {"all-zero", "negated", "half", "multiple", "scaled-by-input", "scaled-by-n"}


def _located(exercise: Exercise, check: CheckResult, runs: Mapping[str, GroupRun]) -> tuple[int, GroupRun] | None:
    name, device = (check.name[:-len(" [cuda]")], "cuda") if check.name.endswith(" [cuda]") else (check.name, "cpu")
    index = next((i for i, p in enumerate(exercise.probes) if p.name == name), None)
    run = runs.get(device)
    return None if index is None or run is None else (index, run)


def _tolerance(exercise: Exercise, check: CheckResult, index: int) -> Tolerance:
    probe = exercise.probes[index]
    return probe.cuda_tolerance if check.name.endswith(" [cuda]") else probe.tolerance


def _right(student: GroupRun, index: int, expected: Expected, tol: Tolerance) -> bool:
    got = student.probes[index]
    if got is None or got.observations is None or isinstance(expected.observations, ErrorInfo):
        return False
    return all(compare(want, got.observations.get(label, _MISSING), tol) is None
               for label, want in expected.observations.items())


def _behaves_like(student: GroupRun, mutant: GroupRun | None, index: int, expected: Expected,
                  tol: Tolerance) -> bool:
    if mutant is None:
        return False
    got, theirs = student.probes[index], mutant.probes[index]
    if got is None or theirs is None:
        return False
    if got.error is not None or theirs.error is not None:  # the same exception, from the same probe
        return got.error is not None and theirs.error is not None and _same_error(got.error, theirs.error)
    if isinstance(expected.observations, ErrorInfo):  # neither raised where the solution does: the same slip
        return True
    if got.observations is None or theirs.observations is None:
        return False
    mutant_is_wrong = any(compare(want, theirs.observations.get(label, ErrorInfo("missing", "")), tol)
                          for label, want in expected.observations.items())
    same = all(label in theirs.observations and compare(theirs.observations[label], value, tol) is None
               for label, value in got.observations.items())
    return mutant_is_wrong and same


def _same_error(a: ErrorInfo, b: ErrorInfo) -> bool:
    """The same type, and the same message but for the numbers in it (sizes, indices, values)."""
    return a.type_name == b.type_name and _DIGITS.sub("#", a.message) == _DIGITS.sub("#", b.message)


_DIGITS = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")


def _known(candidates: list[Mutant], support: Counter[str]) -> Diagnosis:
    best = max(support[m.mistake] for m in candidates)
    top = sorted({m.mistake: m for m in candidates if support[m.mistake] == best}.values(), key=lambda m: m.mistake)
    if len(top) == 1:
        (mutant,) = top
        return Diagnosis(kind="known-mistake", mistake=mutant.mistake, hint=mutant.hint,
                         evidence=f"every value matches what the known mistake {mutant.mistake} gives on these inputs")
    names = " or ".join(m.mistake for m in top)
    return Diagnosis(kind="known-mistake", mistake=top[0].mistake, hint=" / ".join(m.hint for m in top),
                     evidence=f"the values match more than one known mistake here: {names}")


# ------------------------------------------------------------------------------------------------
# Patterns


def _pattern(got: ProbeRun | None, expected: Expected, inputs: Inputs, tol: Tolerance) -> Diagnosis:
    nothing = _NOTHING
    errors = [] if got is None else [got.error] if got.error is not None else \
        [v for v in (got.observations or {}).values() if isinstance(v, ErrorInfo)]
    for error in errors:  # a torch error whose cause is known names the mistake by itself
        known = known_error(error)
        if known is not None:
            return Diagnosis(kind="pattern", mistake=known[0], hint=known[1][0].upper() + known[1][1:],
                             evidence=f"the code raised {error.type_name}: {error.message.splitlines()[0][:160]}")
    if got is None or got.observations is None or isinstance(expected.observations, ErrorInfo):
        return nothing
    want_all, got_all = expected.observations, got.observations
    wrong = [label for label, want in want_all.items() if compare(want, got_all.get(label, _MISSING), tol)]
    if not wrong:
        return nothing
    exchanged = _exchanged(wrong, want_all, got_all, tol)
    if exchanged is not None:
        return exchanged
    if all(_wrong_only_where_zero(want_all[label], got_all.get(label, _MISSING), tol) for label in wrong):
        return _diagnosis("nonzero-where-zero", f"{', '.join(wrong)}: not 0 where the gradient is 0, right elsewhere")
    found = [(label, _ratio_pattern(want_all[label], got_all[label], inputs)) for label in wrong
             if label in got_all]
    kinds = {p.mistake for _, p in found if p is not None}
    if len(kinds) == 1 and all(p is not None for _, p in found):  # every wrong value, the same way
        _, first = found[0]
        assert first is not None
        labels = ", ".join(label for label, _ in found)
        return dataclasses.replace(first, evidence=f"{labels}: {first.evidence}")
    return nothing


_MISSING = ErrorInfo("missing", "nothing observed")


def _numbers(value: Value) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
    if isinstance(value, Number):
        return (), (value.value,)
    if isinstance(value, Array):
        return value.shape, value.data
    return None


PATTERNS = {
    "wrong-shape": "The result's shape is not the expected one: a gradient has the shape of its input, so sum "
                   "over the dimensions that broadcasting added (or return one value per element).",
    "all-zero": "Zero where something was expected: nothing reached it - an output not seeded with 1.0 before the "
                "walk, nodes visited inputs first, an operation that passes nothing on, or a loop that never ran.",
    "negated": "Right size, wrong sign: check the sign of a local derivative (d(x - y)/dy is -1) or of the "
               "update (gradient descent subtracts).",
    "half": "Exactly half: a contribution is lost - a node used twice (w * w, x + x) must add both with +=, "
            "not overwrite with =, and a leaf's grad keeps adding across backward() calls unless cleared.",
    "multiple": "A whole multiple too large: something is counted more than once - a node visited twice in "
                "backward() (keep a set of visited nodes), or gradients that pile up across calls.",
    "scaled-by-input": "Off by a factor that is one of the inputs: the gradient arriving from above "
                       "(out.grad) is missing, or an input's value is used where another's belongs.",
    "scaled-by-n": "Off by a whole factor: something scales the result - a mean's 1/N missing or applied twice, a "
                   "sum where a mean belongs, or a learning rate or number of steps other than the one asked for.",
    "exchanged": "Two gradients are exchanged: each operand's local derivative is the other operand's value "
                 "(d(x*y)/dx = y).",
    "nonzero-where-zero": "Something flows where nothing may: a gradient that must be 0 (through a closed ReLU "
                          "gate, or to an input the output does not depend on) is not. Check the condition "
                          "that gates the gradient and the slope it uses when the gate is closed.",
    "breaks-a-rule": "The values are right, but the file breaks the exercise's rule (see above): do the work the "
                     "way the exercise asks.",
}


def _diagnosis(mistake: str, evidence: str) -> Diagnosis:
    return Diagnosis(kind="pattern", mistake=mistake, hint=PATTERNS[mistake], evidence=evidence)


def _wrong_only_where_zero(want: Value, got: Value, tol: Tolerance) -> bool:
    """Every wrong element should have been exactly 0: something flows where nothing may."""
    expected, actual = _numbers(want), _numbers(got)
    if expected is None or actual is None or expected[0] != actual[0]:
        return False
    wrong = [(w, g) for w, g in zip(expected[1], actual[1], strict=True) if not tol.close(g, w)]
    return bool(wrong) and all(w == 0 and math.isfinite(g) for w, g in wrong)


def _ratio_pattern(want: Value, got: Value, inputs: Inputs) -> Diagnosis | None:
    expected, actual = _numbers(want), _numbers(got)
    if expected is None or actual is None:
        return None
    if expected[0] != actual[0]:
        return _diagnosis("wrong-shape", f"shape {actual[0]} where {expected[0]} was expected")
    pairs = [(w, g) for w, g in zip(expected[1], actual[1], strict=True) if math.isfinite(w) and math.isfinite(g)]
    if not pairs or all(abs(w) < 1e-12 for w, _ in pairs):
        return None
    if all(abs(g) < 1e-12 for _, g in pairs):
        return _diagnosis("all-zero", "0 where something else was expected")
    ratios = {round(g / w, 9) for w, g in pairs if abs(w) > 1e-12}
    if len(ratios) != 1 or any(abs(g) > 1e-12 for w, g in pairs if abs(w) <= 1e-12):
        return None
    (ratio,) = ratios
    if not math.isfinite(ratio):  # a huge value over a small one: no factor a mistake makes
        return None
    if _near(ratio, -1):
        return _diagnosis("negated", "the expected value with its sign flipped")
    if _near(ratio, 0.5):
        return _diagnosis("half", "exactly half the expected value")
    if ratio > 1 and _near(ratio, round(ratio)) and round(ratio) in (2, 4, 8):
        return _diagnosis("multiple", f"exactly {round(ratio)} times the expected value")
    for name, value in inputs.items():
        if isinstance(value, TensorInput) or abs(abs(value) - 1) < 1e-9 or value == 0:
            continue
        if _near(ratio, 1 / value) or _near(ratio, value):
            factor = "divided by" if _near(ratio, 1 / value) else "multiplied by"
            return _diagnosis("scaled-by-input", f"the expected value {factor} {name} = {fmt(value)}")
    for k in range(3, 101):
        if _near(ratio, k) or _near(ratio, 1 / k):
            return _diagnosis("scaled-by-n", f"the expected value {'times' if ratio > 1 else 'divided by'} {k}")
    return None


def _exchanged(wrong: list[str], want: Mapping[str, Value], got: Mapping[str, Value],
               tol: Tolerance) -> Diagnosis | None:
    for i, a in enumerate(wrong):
        for b in wrong[i + 1:]:
            swapped = compare(want[a], got.get(b, _MISSING), tol) is None and \
                compare(want[b], got.get(a, _MISSING), tol) is None
            if swapped:
                return _diagnosis("exchanged", f"{a} has the value {b} should have, and the other way round")
    return None


def _near(x: float, y: float) -> bool:
    return abs(x - y) <= _RATIO * max(1.0, abs(y))


def exercise_mistakes(result: ExerciseResult) -> tuple[list[tuple[str, str, int]], int]:
    """The distinct diagnoses of an exercise's failed checks, (kind, mistake, checks), and how many found none."""
    counts = Counter((c.diagnosis.kind, c.diagnosis.mistake) for c in result.checks
                     if c.diagnosis is not None and c.diagnosis.kind != "unknown")
    unknown = sum(1 for c in result.checks if c.diagnosis is not None and c.diagnosis.kind == "unknown")
    return [(kind, mistake, n) for (kind, mistake), n in counts.most_common()], unknown
