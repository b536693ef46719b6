"""What the known mistakes and the slipped engines give at a seed: run once per exercise and seed, and only when a
diagnosis asks (grader.judge.grading hands the diagnosis how to make them, not the runs)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from grader.judge.diagnose.diagnose import MutantRun, MutantRuns
from grader.judge.diagnose.known_mistakes import mutant_facts
from grader.judge.diagnose.released_mistakes import released_runs
from grader.judge.diagnose.slips import SlipRun, slip_runs
from grader.judge.hidden_runs import has_hidden, hidden_last, merge, part_of
from grader.run.sandbox import Group, Sandbox

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MistakeRuns:
    """What each known mistake (in the sandbox) and each slipped engine (here) give on an exercise's probes."""

    mutants: MutantRuns
    #: the slipped engines, computed once asked for (a diagnosis asks only where no known mistake explains a check)
    slips: Callable[[], tuple[SlipRun, ...]]


#: the mistakes' values by (exercise id, seed): the same for every student too
MutantCache = dict[tuple[str, int], MistakeRuns]


def mistakes_later(sandbox: Sandbox, group: Group, time_limit: float | None, cache: MutantCache | None
                   ) -> tuple[Callable[[], MutantRuns], Callable[[], tuple[SlipRun, ...]]]:
    """How to get the known mistakes' runs and the slipped engines, each made once and only if a diagnosis asks: a
    submission whose failed checks only raised (one that did not load) asks for neither, and with a seed of its own
    nothing else would have run them (a child per mistake)."""
    key = (group.exercise.id, group.seed)
    if cache is not None and key in cache:
        found = cache[key]
        return (lambda: found.mutants), found.slips
    slips = functools.cache(functools.partial(slip_runs, group.exercise, group.inputs, group.seed))
    return (lambda: mistake_runs(sandbox, group, time_limit, cache, slips=slips).mutants), slips


def mistake_runs(sandbox: Sandbox, group: Group, time_limit: float | None,
                 cache: MutantCache | None = None, *, public_only: bool = False,
                 slips: Callable[[], tuple[SlipRun, ...]] | None = None) -> MistakeRuns:
    """Each known mistake and each slipped engine on the student's inputs, once per exercise and seed (CPU).

    Mutants are the instructor's code, but a mistake can loop or crash: they run in the sandbox too. A
    mistake's checks meet the state its earlier checks left, as the student's do (grader.run.sandbox.probes_to_run),
    on every check (which checks a mistake fails is evidence too): in one child where every public check comes
    before the hidden ones (then one run gives each check's record as the student's two runs do), else its public
    and its hidden checks apart, as the student's ran. The slipped engines are the reference engine
    (grader.judge.diagnose.slips) and run here. A released pack has no mutants: it brings what they gave at its seed
    (grader.judge.diagnose.released_mistakes).

    `public_only`: their public checks alone (all a pack keeps of them), in half the children; never cached,
    since grading needs the hidden ones too.
    """
    key = (group.exercise.id, group.seed)
    if cache is not None and key in cache:
        return cache[key]
    if public_only:
        sides = [part_of(group, "public")] if has_hidden([group], "cpu") else [group]
    else:
        sides = [group] if not has_hidden([group], "cpu") or hidden_last(group.exercise, "cpu") else \
            [part_of(group, "public"), part_of(group, "hidden")]
    runs: list[MutantRun] = list(released_runs(group.exercise, group.seed))
    for mutant in group.exercise.mutants:
        facts = mutant_facts(sandbox, mutant, group.exercise, time_limit)
        if facts is None:
            runs.append(MutantRun(mutant, None))
            continue
        both = [sandbox.launch(facts.submission, [side], device="cpu", time_limit=time_limit).result().groups[0]
                for side in sides]
        runs.append(MutantRun(mutant, merge(group.exercise, both[0], both[1] if len(both) > 1 else None),
                              facts.rules, facts.faults, facts.distinctive))
    mistakes = MistakeRuns(tuple(runs), slips or functools.cache(functools.partial(slip_runs, group.exercise,
                                                                                     group.inputs, group.seed)))
    if cache is not None and not public_only:
        keep(cache, key, mistakes)
    return mistakes


#: entries a cache of expected values or mistakes' runs keeps: each exercise at one seed for a whole class, the
#: latest of a seed per submission (a server's worker grades for a whole term)
KEPT = 256


def keep(cache: dict[tuple[str, int], T], key: tuple[str, int], value: T) -> None:
    """Keep `value` under `key`; past KEPT entries, the oldest go."""
    cache[key] = value
    while len(cache) > KEPT:
        del cache[next(iter(cache))]
