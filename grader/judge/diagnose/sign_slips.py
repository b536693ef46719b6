"""The sign-slips pass: a failed check nothing else explains names a sign slip in one rule where
every value is what the reference engine with that slope's sign flipped gives, and wrong
(grader.judge.diagnose.slips makes the slipped engines).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from grader.core.values import ErrorInfo
from grader.judge.diagnose.evidence import Evidence
from grader.judge.diagnose.matching import behaves_like, has_numbers, passes_on
from grader.judge.diagnose.slips import SlipRun, Slope
from grader.judge.report import Diagnosis, ExerciseResult, Operand, RuleFault


def name_slips(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The result, with a sign slip in one rule named on each failed check nothing else explains
    where every value is what that slip gives (and wrong).

    Where several slips give the same values, the one the rest of the submission
    agrees with most is named: first the one that fails fewest of the checks the
    student passes (a student with that slip would fail those too), then the one
    that fits the most failed checks; a tie names them all, as one of.
    """
    unexplained = [i for i in sorted(evidence.failing) if result.checks[i].diagnosis is None]
    if not unexplained:
        return result
    slips = evidence.slips()
    matches: dict[int, list[SlipRun]] = {}
    for index in unexplained:
        probe_index, run = evidence.ran[index]
        want = evidence.expected[probe_index]
        if not has_numbers(run, probe_index) or isinstance(want.observations, ErrorInfo):
            continue
        tol = evidence.tolerance(index)
        matches[index] = [s for s in slips if behaves_like(run, s.run, probe_index, want, tol)]
    rank = _ranks(evidence, matches)
    checks = list(result.checks)
    for index, candidates in matches.items():
        if candidates:
            diagnosis = _slipped(candidates, rank)
            checks[index] = dataclasses.replace(checks[index], diagnosis=diagnosis)
    return dataclasses.replace(result, checks=tuple(checks))


#: a slip as the checks tell it apart: its slope, and whether the reverse is built from it
SlipKey = tuple[Slope, bool]


def _ranks(evidence: Evidence, matches: dict[int, list[SlipRun]]) -> dict[SlipKey, tuple[int, int]]:
    """Each fitting slip's rank: fewest of the student's passed checks contradicted, then the
    most failed checks fitted."""
    support: Counter[SlipKey] = Counter()
    for found in matches.values():
        support.update((s.slope, s.shared) for s in found)
    passed = [
        i
        for i, c in enumerate(evidence.result.checks)
        if c.status == "passed" and i in evidence.ran
    ]

    def contradictions(slip: SlipRun) -> int:
        count = 0
        for index in passed:
            probe_index = evidence.probe_index(index)
            want = evidence.expected[probe_index]
            if not passes_on(slip.run, probe_index, want, evidence.tolerance(index)):
                count += 1
        return count

    rank = {}
    for found in matches.values():
        for s in found:
            rank[s.slope, s.shared] = (-contradictions(s), support[s.slope, s.shared])
    return rank


def _slipped(candidates: Sequence[SlipRun], rank: dict[SlipKey, tuple[int, int]]) -> Diagnosis:
    best = max(rank[s.slope, s.shared] for s in candidates)
    # one slip per slope: where both shapes of engine fit equally, the slope is what matters
    by_slope: dict[Slope, SlipRun] = {}
    for s in candidates:
        if rank[s.slope, s.shared] == best:
            by_slope.setdefault(s.slope, s)
    top = list(by_slope.values())
    flipped = " or ".join(t.evidence for t in top)
    hint = " / ".join(t.slope.hint for t in top)
    if len(top) > 1:
        return Diagnosis(
            kind="pattern",
            mistake="negated",
            hint=hint,
            evidence="every value matches the reference engine with the sign of one of "
            f"{flipped} flipped",
        )
    operand: Operand = "self" if top[0].slope.operand == 0 else "other"
    return Diagnosis(
        kind="pattern",
        mistake="negated",
        hint=hint,
        evidence=f"every value matches the reference engine with the sign of {flipped} flipped",
        rule=RuleFault(method=top[0].slope.method, operand=operand, how="negated"),
    )
