"""Diagnose an exercise twice where it has hidden checks: on every check, and on the public checks' evidence alone.

A diagnosis weighs the whole submission: a known mistake is named on a check only where the student fails every
check that mistake fails, a ratio only where every wrong check shows it, a slip by the checks it contradicts
(grader.judge.diagnose.diagnose). Over every check, hidden ones included, a public check's diagnosis says something
of the hidden verdicts: one bit of the hidden run before the deadline (submissions/hostile/
diagnosis_reads_the_hidden_verdict.py). So each public check also gets the diagnosis made as though the hidden
checks did not exist (their results and the student's records of them out of sight), kept in the report where it
differs (`public_diagnosis`, `public_masked`): what a student reads before the deadline
(grader.judge.audience), as a released pack without hidden checks would diagnose the same file.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence

from grader.core.exercise import Exercise
from grader.judge.diagnose.diagnose import KnownMistakes, MutantRuns, diagnose_exercise
from grader.judge.diagnose.faults import Fault
from grader.judge.diagnose.patterns import NOTHING
from grader.judge.diagnose.slips import SlipRun
from grader.judge.names import Definitions
from grader.judge.oracle import Expected
from grader.judge.report import ExerciseResult
from grader.run.inputs import Inputs
from grader.run.observed import GroupRun


def diagnose_both(exercise: Exercise, result: ExerciseResult, inputs: tuple[Inputs, ...],
                  expected: tuple[Expected, ...], runs: Mapping[str, GroupRun],
                  mutants: MutantRuns | Callable[[], MutantRuns] | KnownMistakes,
                  rules: frozenset[str], slips: Sequence[SlipRun] | Callable[[], Sequence[SlipRun]],
                  defined: Definitions | None,
                  faults: Sequence[Fault] | Callable[[], Sequence[Fault]]) -> ExerciseResult:
    """diagnose_exercise's result (the full diagnosis, every check's evidence), each public check carrying the
    diagnosis on the public checks' evidence alone where that differs, and the exercise its masked mistakes so.

    The localization (`faults`) and the known mistakes' runs (`mutants`) run once for both, whichever asks first:
    the localization runs on probes of its own, never the hidden checks', so what it finds is the same whoever
    asked; a mistake's run is the instructor's code, on every check."""
    faults = functools.cache(faults) if callable(faults) else faults
    mutants = functools.cache(mutants) if callable(mutants) else mutants
    full = diagnose_exercise(exercise, result, inputs, expected, runs, mutants, rules, slips, defined, faults)
    if not any(c.visibility == "hidden" for c in result.checks):
        return full
    hidden = {i for i, p in enumerate(exercise.probes) if p.visibility == "hidden"}
    # the student's records of the hidden probes are out of sight too, not only the hidden checks' results
    seen = {device: dataclasses.replace(run, probes=tuple(None if i in hidden else p for i, p in enumerate(run.probes)))
            for device, run in runs.items()}
    public = diagnose_exercise(exercise, dataclasses.replace(result, checks=tuple(
        c for c in result.checks if c.visibility != "hidden")), inputs, expected, seen, mutants, rules, slips, defined,
        faults)
    shown = iter(public.checks)
    checks = []
    for check in full.checks:
        if check.visibility == "hidden":
            checks.append(check)
            continue
        alone = next(shown).diagnosis
        if alone != check.diagnosis:  # a failed check always has one; never None where the full one names something
            check = dataclasses.replace(check, public_diagnosis=NOTHING if alone is None else alone)
        checks.append(check)
    return dataclasses.replace(full, checks=tuple(checks),
                               public_masked=None if public.masked == full.masked else public.masked)
