"""The known-mistakes pass: a failed check names the exercise's known mistake (a mutant) whose
run gave what the student's did.

A known mistake is claimed only where it fits the whole submission: the student fails every check
that mistake fails (a student who made it would), every observation of the check matches what the
mutant gave on the same inputs, and the mutant is wrong there too. A match on an exception or a
text, not numbers, names the mistake only where it isolates it (grader.judge.diagnose.matching)
or a match elsewhere has established it. Right values scored down for a broken rule match the
mistakes that break the same rules. Where a check fits several, the one that fits the most checks
of the submission wins.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Collection, Sequence

from grader.core.exercise import Mutant
from grader.judge.diagnose.evidence import Evidence, MutantRun, MutantRuns
from grader.judge.diagnose.matching import (
    behaves_like,
    distinctive,
    from_gradcheck,
    has_numbers,
    passes,
    same_error,
    same_outcome,
)
from grader.judge.report import Diagnosis, ExerciseResult
from grader.judge.run_rules import rule_breaks
from grader.run.observed import GroupRun

#: (check, mutant, whether the match isolates that mistake)
Candidate = tuple[int, MutantRun, bool]


def name_known(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The result, each failed check that a known mistake fits named by it."""
    compares, by_rule = _compares(evidence)
    if not compares:
        return result
    if by_rule:
        known = evidence.mutants()
    else:
        passed = frozenset(
            evidence.probe_index(i) for i in evidence.ran if i not in evidence.failing
        )
        known = evidence.could_fit(passed)
    matches = _matches(evidence, known)
    support: Counter[str] = Counter()
    for found in matches.values():
        support.update(m.mistake for m in found)
    checks = list(result.checks)
    for index, found in matches.items():
        if found:
            checks[index] = dataclasses.replace(checks[index], diagnosis=_known(found, support))
    return dataclasses.replace(result, checks=tuple(checks))


def _compares(evidence: Evidence) -> tuple[bool, bool]:
    """Whether a failed check asks for the mistakes' runs (values to compare, an error of a kind
    whose mistakes are compared on errors too, or right values scored down for a rule), and
    whether one is of the last kind (matched with every mistake breaking the same rules). A file
    that did not load asks for none."""
    compares = by_rule = False
    for index in evidence.failing:
        if evidence.exercise.kind.torch or evidence.has_values(index):
            compares = True
        if (evidence.rules or evidence.broken(index)) and evidence.all_right(index):
            compares = by_rule = True
    return compares, by_rule


def _matches(evidence: Evidence, known: MutantRuns) -> dict[int, list[Mutant]]:
    """The known mistakes that fit each failed check."""
    fails = {id(m): _mutant_fails(evidence, m) for m in known}
    fits = [m for m in known if fails[id(m)] <= evidence.failing]
    matches: dict[int, list[Mutant]] = {}
    # a weak match (an exception, a text) that other mistakes share names a
    # mistake only once a match elsewhere has established it
    candidates: list[Candidate] = []
    for index in evidence.failing:
        if (evidence.rules or evidence.broken(index)) and evidence.all_right(index):
            # Right numbers, not scored for a broken rule (on the syntax tree, or by what
            # ran): the mistake is the rule's, as in a mutant that breaks the same rules.
            matches[index] = _breaking_the_same(evidence, index, known)
            continue
        matches[index] = []
        if not evidence.exercise.kind.torch and not evidence.has_values(index):
            # an engine's own error, a stop or a check never run: no mistake's values to compare
            continue
        for mutant in fits:
            candidate = _candidate(evidence, index, mutant, fails[id(mutant)])
            if candidate is not None:
                candidates.append(candidate)
    established = {m.mutant.mistake for _, m, isolating in candidates if isolating}
    for index, mutant, isolating in candidates:
        if isolating or mutant.mutant.mistake in established:
            matches[index].append(mutant.mutant)
    return matches


def _breaking_the_same(evidence: Evidence, index: int, known: MutantRuns) -> list[Mutant]:
    """The known mistakes whose files break the student's rules, and whose runs break the
    rules check `index`'s run breaks."""
    probe_index = evidence.probe_index(index)
    probe = evidence.exercise.probes[probe_index]
    broken = evidence.broken(index)
    found = []
    for m in known:
        if m.rules != evidence.rules or m.run is None:
            continue
        if rule_breaks(evidence.exercise, probe, m.run.probes[probe_index]) == broken:
            found.append(m.mutant)
    return found


def _candidate(
    evidence: Evidence, index: int, mutant: MutantRun, mutant_fails: set[int]
) -> Candidate | None:
    """The mutant as a candidate for check `index`: it behaves as the student's run does there,
    on numbers (it isolates the mistake) or on an exception or a text it raises wherever the
    student does (it isolates it only where `isolates` says so)."""
    probe_index, run = evidence.ran[index]
    want, tol = evidence.expected[probe_index], evidence.tolerance(index)
    if mutant.run is None or not behaves_like(run, mutant.run, probe_index, want, tol):
        return None
    if has_numbers(run, probe_index, want, tol):
        return index, mutant, True
    if not _raises_wherever(evidence, mutant, run):
        return None
    isolating = isolates(evidence, index, mutant, mutant_fails)
    return index, mutant, isolating


def isolates(
    evidence: Evidence, index: int, mutant: MutantRun, mutant_fails: Collection[int]
) -> bool:
    """Whether the student's weak match on check `index` with the run of `mutant` (which fails
    the checks `mutant_fails`) is evidence for its mistake."""
    exercise, tol = evidence.exercise, evidence.tolerance(index)
    probe_index, student = evidence.ran[index]
    theirs = mutant.run
    if theirs is None or from_gradcheck(exercise.probes[probe_index]):
        return False
    outcome = theirs.probes[probe_index]
    for other in evidence.mutants():
        if other.mutant.mistake == mutant.mutant.mistake or other.run is None:
            continue
        if same_outcome(other.run.probes[probe_index], outcome, tol):
            return False
    # the student is wrong exactly where the mistake
    # is, and the same way on every one of those checks
    if not set(evidence.failing) <= set(mutant_fails):
        return False
    for i in mutant_fails:
        at = evidence.probe_index(i)
        if not same_outcome(student.probes[at], theirs.probes[at], tol):
            return False
    got, defined = student.probes[probe_index], evidence.facts()
    if got is None or got.error is None or defined is None:
        return True
    distinct = mutant.distinctive
    if distinct is None:
        distinct = distinctive(mutant.mutant.path, exercise.solution)
    return not distinct or bool(distinct & defined.identifiers)


def _mutant_fails(evidence: Evidence, mutant: MutantRun) -> set[int]:
    """The checks this mistake fails, on the CPU run of the mutant."""
    if mutant.run is None:
        return set(evidence.ran)
    failed = set()
    for index, (probe_index, _) in evidence.ran.items():
        got = mutant.run.probes[probe_index]
        raises = evidence.exercise.probes[probe_index].raises is not None
        want, tol = evidence.expected[probe_index], evidence.tolerance(index)
        if got is None or not passes(got, want, raises, tol):
            failed.add(index)
    return failed


def _raises_wherever(evidence: Evidence, mutant: MutantRun, run: GroupRun) -> bool:
    """Every probe of a failed check where the student's `run` raised an error, the mutant
    raised the same one."""
    for index in evidence.failing:
        probe_index = evidence.probe_index(index)
        got = run.probes[probe_index]
        if got is None or got.error is None:
            continue
        theirs = None if mutant.run is None else mutant.run.probes[probe_index]
        if theirs is None or theirs.error is None or not same_error(got.error, theirs.error):
            return False
    return True


def _known(candidates: Sequence[Mutant], support: Counter[str]) -> Diagnosis:
    best = max(support[m.mistake] for m in candidates)
    top = sorted(
        {m.mistake: m for m in candidates if support[m.mistake] == best}.values(),
        key=lambda m: m.mistake,
    )
    if len(top) == 1:
        (mutant,) = top
        return Diagnosis(
            kind="known-mistake",
            mistake=mutant.mistake,
            hint=mutant.hint,
            evidence="every value matches what the known mistake "
            f"{mutant.mistake} gives on these inputs",
        )
    names = " or ".join(m.mistake for m in top)
    return Diagnosis(
        kind="known-mistake",
        mistake=top[0].mistake,
        hint=" / ".join(m.hint for m in top),
        evidence=f"the values match more than one known mistake here: {names}",
    )
