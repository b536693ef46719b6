"""Name the likely mistake behind a failed check: a known mistake (a mutant it behaves like), or a pattern.

A known mistake is claimed only when every observation of the check matches what that mutant gave on
the same inputs, and the mutant is wrong there too (on an exception or a text, only where it isolates
that mistake: grader.judge.diagnose.weak_evidence). Otherwise the numbers and errors are read for the patterns of
grader.judge.diagnose.patterns, then compared with the reference engine with one slope's sign flipped
(grader.judge.diagnose.slips). Last, a fault localized in one rule (grader.judge.diagnose.faults) replaces the
symptoms it explains (grader.judge.diagnose.blame). Otherwise the check says that nothing known matches; a
diagnosis never claims more than it found.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from grader.core.exercise import Exercise, Mutant
from grader.core.values import ErrorInfo
from grader.judge.diagnose.blame import blame
from grader.judge.diagnose.code_names import name_from_code
from grader.judge.diagnose.faults import Fault
from grader.judge.diagnose.likeness import behaves_like, locate, passes, passes_on, right, strong, tolerance_of
from grader.judge.diagnose.named_errors import RIGHT_ELSEWHERE
from grader.judge.diagnose.patterns import NOTHING, RATIOS, named_pattern, pattern
from grader.judge.diagnose.slips import SlipRun, Slope
from grader.judge.diagnose.unreached import unreached_missing
from grader.judge.diagnose.weak_evidence import distinctive, isolates, same_error
from grader.judge.names import Definitions
from grader.judge.oracle import Expected
from grader.judge.report import Diagnosis, ExerciseResult, RuleFault
from grader.judge.run_rules import rule_breaks
from grader.judge.uses import probe_uses
from grader.run.inputs import Inputs
from grader.run.observed import GroupRun, ProbeRun


@dataclass(frozen=True, slots=True)
class MutantRun:
    """What one known mistake gave on the exercise's probes, and which source rules it breaks."""

    mutant: Mutant
    #: None when it could not be run
    run: GroupRun | None
    rules: frozenset[str] = frozenset()
    #: what localization finds wrong in it (grader.judge.diagnose.faults), as (method, how)
    faults: frozenset[tuple[str, str]] = frozenset()
    #: what its code does that the solution's does not (grader.judge.diagnose.weak_evidence); None: read from its file
    distinctive: frozenset[str] | None = None


MutantRuns = Sequence[MutantRun]


@dataclass(frozen=True, slots=True)
class KnownMistakes:
    """An exercise's known mistakes at a seed, each run once a diagnosis asks (grader.judge.mistake_runs). `could_fit`:
    at least those that can fit a student who passed the checks of probes `passed`; `faults`: each one's (method,
    how)."""

    every: Callable[[], MutantRuns]
    could_fit: Callable[[frozenset[int], tuple[Expected, ...]], MutantRuns]
    faults: Callable[[], Mapping[str, frozenset[tuple[str, str]]]]


def diagnose_exercise(exercise: Exercise, result: ExerciseResult, inputs: tuple[Inputs, ...],
                      expected: tuple[Expected, ...], runs: Mapping[str, GroupRun],
                      mutants: MutantRuns | Callable[[], MutantRuns] | KnownMistakes,
                      rules: frozenset[str] = frozenset(),
                      slips: Sequence[SlipRun] | Callable[[], Sequence[SlipRun]] = (),
                      defined: Definitions | None = None,
                      faults: Sequence[Fault] | Callable[[], Sequence[Fault]] = ()) -> ExerciseResult:
    """The exercise's checks, each failed one with a diagnosis.

    `runs`: the student's, by device; `mutants`: what each known mistake gave, or how to run them (asked only where
    a failed check has values to compare); `rules`: the source rules the student's file breaks. A known
    mistake is named on a check only when it fits the whole submission: the student fails every check
    that mistake fails (a student who made it would), and, where the match is only an exception or a
    text, the mistake raises it wherever the student does and nothing else could give it
    (grader.judge.diagnose.weak_evidence). `defined`: the submission's syntax tree's facts, which confirm what an error
    says (grader.judge.diagnose.named_errors). `slips`: the reference engine with one slope's sign
    flipped (grader.judge.diagnose.slips), named where no known mistake or pattern is and every value of the check
    matches one (or how to compute them, asked only then). `faults`: the rules localization found wrong
    (grader.judge.diagnose.faults), or how to find them, asked only where a diagnosis could change; a check whose code
    uses one names that rule, not the symptom (grader.judge.diagnose.blame).
    """
    try:
        return _diagnose(exercise, result, inputs, expected, runs, mutants, rules, slips, defined, faults)
    except Exception as exc:  # noqa: BLE001 - the grader's own bug costs the diagnoses, never the report
        return _undiagnosed(result, exc)


def _undiagnosed(result: ExerciseResult, exc: Exception) -> ExerciseResult:
    """Every failed check says that it could not be diagnosed, and why, for whoever reads the grader's bug."""
    failed = Diagnosis(kind="unknown", mistake="", hint="",
                       evidence=f"the grader could not diagnose this check ({type(exc).__name__}: {exc})"[:300])
    return dataclasses.replace(result, checks=tuple(
        dataclasses.replace(c, diagnosis=failed) if c.status in ("failed", "error") else c for c in result.checks))


def _diagnose(exercise: Exercise, result: ExerciseResult, inputs: tuple[Inputs, ...],
              expected: tuple[Expected, ...], runs: Mapping[str, GroupRun],
              mutants: MutantRuns | Callable[[], MutantRuns] | KnownMistakes,
              rules: frozenset[str], slips: Sequence[SlipRun] | Callable[[], Sequence[SlipRun]],
              defined: Definitions | None,
              faults: Sequence[Fault] | Callable[[], Sequence[Fault]]) -> ExerciseResult:
    located = {i: found for i, check in enumerate(result.checks)
               if check.status != "skipped" and (found := locate(exercise, check, runs)) is not None}
    failing = {i for i, check in enumerate(result.checks) if check.status in ("failed", "error") and i in located}
    probe_of = {i: probe_index for i, (probe_index, _) in located.items()}
    # the mistakes' runs only for values to compare or right values scored down for a rule (none for a file that
    # did not load); for values alone, not those failing a check the student passed: they cannot fit (could_fit)
    compares, by_rule = _compares(exercise, result, located, failing, expected, rules)
    every = functools.cache(lambda: list(mutants.every() if isinstance(mutants, KnownMistakes) else
                                         mutants() if callable(mutants) else mutants))
    known = [] if not compares else every() if by_rule or not isinstance(mutants, KnownMistakes) else \
        list(mutants.could_fit(frozenset(probe_of[i] for i in located if i not in failing), expected))
    fails = {id(m): _mutant_fails(m, located, expected, exercise, result) for m in known}
    fits = [m for m in known if fails[id(m)] <= failing]
    matches: dict[int, list[Mutant]] = {}
    # (check, mutant, whether the match isolates that mistake): a weak match (an exception, a text) that
    # other mistakes share names a mistake only once a match elsewhere has established it
    candidates: list[tuple[int, MutantRun, bool]] = []
    for index in failing:
        probe_index, run = located[index]
        tol = tolerance_of(exercise, result.checks[index], probe_index)
        probe = exercise.probes[probe_index]
        broken = rule_breaks(exercise, probe, run.probes[probe_index])
        if (rules or broken) and right(run, probe_index, expected[probe_index], tol):
            # Right numbers, not scored for a broken rule (on the syntax tree, or by what ran): the mistake is
            # the rule's, as in a mutant that breaks the same rules.
            matches[index] = [m.mutant for m in known if m.rules == rules and m.run is not None
                              and rule_breaks(exercise, probe, m.run.probes[probe_index]) == broken]
            continue
        matches[index] = []
        if exercise.engine != "torch" and not _has_values(result.checks[index].status, run.probes[probe_index]):
            continue  # an engine's own error, a stop or a check never run: no mistake's values to compare
        for m in fits:
            if m.run is None or not behaves_like(run, m.run, probe_index, expected[probe_index], tol):
                continue
            if strong(run, probe_index, expected[probe_index], tol):
                candidates.append((index, m, True))
            elif _raises_wherever(m, run, located, failing):
                others = [(n.mutant.mistake, n.run) for n in every()]
                candidates.append((index, m, isolates(
                    m.mutant.mistake, m.run, others, run, probe_index, student_fails=failing, mutant_fails=fails[id(m)],
                    probe_of=probe_of, exercise=exercise, defined=defined, tol=tol,
                    distinct=m.distinctive if m.distinctive is not None
                    else distinctive(m.mutant.path, exercise.solution))))
    established = {m.mutant.mistake for _, m, isolating in candidates if isolating}
    for index, m, isolating in candidates:
        if isolating or m.mutant.mistake in established:
            matches[index].append(m.mutant)
    # Where a check fits several mutants, the one that fits the most checks of this submission wins.
    support = Counter(m.mistake for found in matches.values() for m in found)
    patterns = _consistent_patterns(exercise, result, located, failing, expected, inputs, matches, defined)
    unexplained = failing - {i for i, found in matches.items() if found} - set(patterns)
    slipped = _slips(exercise, result, located, unexplained, expected,
                     slips() if callable(slips) and unexplained else () if callable(slips) else slips)
    checks = list(result.checks)
    for index in sorted(failing):
        probe_index, run = located[index]
        check = checks[index]
        if matches.get(index):
            diagnosis = _known(matches[index], support)
        elif (broken := (*sorted(rules), *rule_breaks(exercise, exercise.probes[probe_index],
                                                       run.probes[probe_index]))) \
                and right(run, probe_index, expected[probe_index], tolerance_of(exercise, check, probe_index)):
            diagnosis = named_pattern("breaks-a-rule", f"the values are right, but: {'; '.join(broken)}")
        else:
            diagnosis = patterns.get(index, slipped.get(index, NOTHING))
        checks[index] = dataclasses.replace(check, diagnosis=diagnosis)
    # ---- hook: tensor exercises' patterns and backward chains (grader/judge/tensor/tensor_patterns.py) ----
    if exercise.engine == "tensor":
        from grader.judge.tensor import tensor_patterns  # numpy and the tensor reference, for tensor exercises only

        checks = tensor_patterns.refine(exercise, checks, located, failing, expected, inputs, defined)
    # ---- end of the hook ----
    result = dataclasses.replace(result, checks=tuple(checks))
    # a localized rule explains wrong values only: a check that raised, stopped or never ran keeps what its
    # error states, and asks for no localization
    valued = {i: probe_of[i] for i in failing
              if _has_values(result.checks[i].status, located[i][1].probes[probe_of[i]])}
    # what the syntax tree says of a whole check (a method its instances hide) explains it whatever the values show
    named = name_from_code(exercise, blame(exercise, result, valued, faults, _faults(mutants, known, valued)),
                           located, defined)
    return _withheld(unreached_missing(exercise, named, located, defined))


def _compares(exercise: Exercise, result: ExerciseResult, located: Mapping[int, tuple[int, GroupRun]],
              failing: set[int], expected: tuple[Expected, ...], rules: frozenset[str]) -> tuple[bool, bool]:
    """Whether a failed check asks for the mistakes' runs (a torch check, values to compare, or right values scored
    down for a rule), and whether one is of the last kind (matched with every mistake breaking the same rules)."""
    compares = by_rule = False
    for index in failing:
        probe_index, run = located[index]
        if exercise.engine == "torch" or _has_values(result.checks[index].status, run.probes[probe_index]):
            compares = True
        broken = rule_breaks(exercise, exercise.probes[probe_index], run.probes[probe_index])
        if (rules or broken) and right(run, probe_index, expected[probe_index],
                                       tolerance_of(exercise, result.checks[index], probe_index)):
            compares = by_rule = True
    return compares, by_rule


def _faults(mutants: MutantRuns | Callable[[], MutantRuns] | KnownMistakes, known: Sequence[MutantRun],
            valued: Mapping[int, int]) -> Mapping[str, frozenset[tuple[str, str]]]:
    """Each mistake's localized (method, how), run or not, where blame reads them (a check with values)."""
    return mutants.faults() if isinstance(mutants, KnownMistakes) and valued else \
        {m.mutant.mistake: m.faults for m in known}


def _has_values(status: str, got: ProbeRun | None) -> bool:
    """The check ran to its end and observed something: a failure of values, not an error."""
    return status == "failed" and got is not None and got.error is None and got.observations is not None


def _withheld(result: ExerciseResult) -> ExerciseResult:
    """Hidden checks keep a diagnosis's name and hint, not its evidence; a check failed by precision names nothing."""
    return dataclasses.replace(result, checks=tuple(
        dataclasses.replace(c, diagnosis=None) if c.cause.kind == "precision" else
        dataclasses.replace(c, diagnosis=dataclasses.replace(c.diagnosis, evidence="withheld: this check is hidden"))
        if c.visibility == "hidden" and c.diagnosis is not None else c for c in result.checks))


def _mutant_fails(mutant: MutantRun, located: Mapping[int, tuple[int, GroupRun]], expected: tuple[Expected, ...],
                  exercise: Exercise, result: ExerciseResult) -> set[int]:
    """The checks this mistake fails, on the CPU run of the mutant."""
    if mutant.run is None:
        return set(located)
    failed = set()
    for index, (probe_index, _) in located.items():
        got = mutant.run.probes[probe_index]
        want = expected[probe_index]
        tol = tolerance_of(exercise, result.checks[index], probe_index)
        if got is None or not passes(got, want, exercise.probes[probe_index].raises is not None, tol):
            failed.add(index)
    return failed


def _raises_wherever(mutant: MutantRun, run: GroupRun, located: Mapping[int, tuple[int, GroupRun]],
                     failing: set[int]) -> bool:
    """Every check where the student raised an error, the mutant raised the same one."""
    for index in failing:
        probe_index, _ = located[index]
        got = run.probes[probe_index]
        if got is None or got.error is None:
            continue
        theirs = None if mutant.run is None else mutant.run.probes[probe_index]
        if theirs is None or theirs.error is None or not same_error(got.error, theirs.error):
            return False
    return True


def _consistent_patterns(exercise: Exercise, result: ExerciseResult, located: Mapping[int, tuple[int, GroupRun]],
                         failing: set[int], expected: tuple[Expected, ...], inputs: tuple[Inputs, ...],
                         matches: Mapping[int, list[Mutant]], defined: Definitions | None) -> dict[int, Diagnosis]:
    """Patterns for the checks no known mistake explains.

    A ratio (half, double, negated...) can hold on one check by chance, so it is named only when every
    numerically wrong check of the exercise shows the same one, and there are at least two. A wrong shape,
    a known error and two exchanged values are facts of their own check, named where they occur.
    """
    found: dict[int, Diagnosis] = {}
    ratios: dict[int, Diagnosis | None] = {}
    for index in sorted(failing):
        if matches.get(index):
            continue
        probe_index, run = located[index]
        uses = probe_uses(exercise, exercise.probes[probe_index]) if exercise.engine == "scalar" else None
        diagnosis = pattern(run.probes[probe_index], expected[probe_index], inputs[probe_index],
                             tolerance_of(exercise, result.checks[index], probe_index), exercise.engine, defined,
                             uses)
        if diagnosis.mistake in RATIOS:
            ratios[index] = diagnosis
        elif diagnosis.kind != "unknown":
            found[index] = diagnosis
        elif strong(run, probe_index):
            ratios[index] = None  # numbers, but no ratio: no ratio pattern can hold for the whole exercise
    kinds = {d.mistake if d is not None else None for d in ratios.values()}
    # one check alone is chance: a function that makes its own tensor can be off by a ratio on the one check
    # where that matters
    if len(kinds) == 1 and None not in kinds and len(ratios) > 1:
        found.update({i: d for i, d in ratios.items() if d is not None})
    if any(_has_values(result.checks[i].status, located[i][1].probes[located[i][0]]) for i in failing):
        # wrong values elsewhere: an overflow is not the mistake, the formula is
        found = {i: d for i, d in found.items() if d.mistake not in RIGHT_ELSEWHERE}
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
        if not strong(run, probe_index) or isinstance(want.observations, ErrorInfo):
            continue
        tol = tolerance_of(exercise, result.checks[index], probe_index)
        matches[index] = [s for s in slips if behaves_like(run, s.run, probe_index, want, tol)]
    support = Counter((s.slope, s.shared) for found in matches.values() for s in found)
    passed = [located[i] + (i,) for i, check in enumerate(result.checks) if check.status == "passed" and i in located]

    def contradictions(slip: SlipRun) -> int:
        return sum(1 for probe_index, _, index in passed
                   if not passes_on(slip.run, probe_index, expected[probe_index],
                                     tolerance_of(exercise, result.checks[index], probe_index)))

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
        rule = RuleFault(method=top[0].slope.method, operand="self" if top[0].slope.operand == 0 else "other",
                         how="negated") if len(top) == 1 else None
        found[index] = Diagnosis(
            kind="pattern", mistake="negated", hint=" / ".join(t.slope.hint for t in top),
            evidence=f"every value matches the reference engine with the sign of {flipped} flipped"
            if len(top) == 1 else f"every value matches the reference engine with the sign of one of {flipped} "
            "flipped", rule=rule)
    return found


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
