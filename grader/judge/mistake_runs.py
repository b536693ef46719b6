"""What the known mistakes and the slipped engines give at a seed: each run once per exercise and seed, and only when a
diagnosis asks (grader.judge.grading hands the diagnosis how to make them, not the runs)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from grader.core.exercise import Exercise, Mutant
from grader.judge.diagnose.diagnose import KnownMistakes, MutantRun, MutantRuns
from grader.judge.diagnose.known_mistakes import mutant_facts, stamp
from grader.judge.diagnose.likeness import passes
from grader.judge.diagnose.localize import out_of_time
from grader.judge.diagnose.released_mistakes import released_runs
from grader.judge.diagnose.slips import SlipRun, slip_runs
from grader.judge.hidden_runs import has_hidden, hidden_last, join_parts, part_of
from grader.judge.library.standin import observed
from grader.judge.oracle import Expected
from grader.run.observed import RunResult
from grader.run.read.load import Submission
from grader.run.sandbox import Group, Sandbox, probes_to_run

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MistakeRuns:
    """What each known mistake (in the sandbox) and each slipped engine (here) give on an exercise's probes."""

    mutants: MutantRuns
    #: the slipped engines, computed once asked for (a diagnosis asks only where no known mistake explains a check)
    slips: Callable[[], tuple[SlipRun, ...]]


class Mistakes:
    """One exercise's known mistakes at one seed, each run the first time it is asked for, and its slipped engines."""

    def __init__(self, group: Group, *, public_only: bool = False) -> None:
        self.group = group
        self.sides = _sides(group, public_only)
        self.slips = functools.cache(functools.partial(slip_runs, group.exercise, group.inputs, group.seed))
        self._runs: dict[Path, MutantRun] = {}
        #: a mistake's run stopped early (its time, memory, a signal): what it failed may be the machine's doing
        self.stopped = False
        self._files: tuple[object, ...] | None = None
        #: the mistakes whose last run ran out of time twice, and so name nothing (noted in the report)
        self.late: set[str] = set()

    def run(self, sandbox: Sandbox, mutant: Mutant, time_limit: float | None) -> MutantRun:
        if mutant.path in self._runs:
            return self._runs[mutant.path]
        run, stopped = _run_one(sandbox, mutant, self.group, self.sides, time_limit)
        self.stopped = self.stopped or stopped
        if run.run is not None:  # one that ran out of time twice is asked again by the next diagnosis
            self._runs[mutant.path] = run
            self.late.discard(mutant.mistake)
        elif stopped:
            self.late.add(mutant.mistake)
        return run

    def files(self) -> tuple[object, ...]:
        """The exercise and its files as they were first asked for (once per entry): what _FAILING is kept under."""
        if self._files is None:
            exercise = self.group.exercise
            self._files = (exercise.id, stamp(exercise.folder / "exercise.yaml"), stamp(exercise.solution),
                           *(stamp(m.path) for m in exercise.mutants))
        return self._files

    def every(self, sandbox: Sandbox, time_limit: float | None) -> MutantRuns:
        return (*released_runs(self.group.exercise, self.group.seed),
                *(self.run(sandbox, m, time_limit) for m in self.group.exercise.mutants))

    def could_fit(self, sandbox: Sandbox, time_limit: float | None, passed: frozenset[int],
                  expected: tuple[Expected, ...]) -> MutantRuns:
        """At least every mistake that can fit a student who passed the checks of the probes `passed`: those that
        fail none of them where this process has seen each mistake's failing probes (at any seed: they are the
        same at every seed, tests/test_mutant_runs.py), else all of them, whose failing probes are kept then."""
        exercise = self.group.exercise
        key = self.files()
        failing = _FAILING.get(key) if exercise.engine != "torch" else None
        if failing is None:
            runs = self.every(sandbox, time_limit)
            # a torch mistake's failing checks are not held to be the same at every seed; and what a run stopped
            # early failed is not kept for the process's life: a loaded machine would leave that mistake out for good
            if exercise.engine != "torch" and not self.stopped:
                _keep_failing(key, exercise, runs, expected)
            return runs
        return (*released_runs(exercise, self.group.seed),
                *(self.run(sandbox, m, time_limit) for m in exercise.mutants
                  if m.path not in failing or not failing[m.path] & passed))


#: the mistakes by (exercise id, seed), each run at most once: the same for every student of that seed
MutantCache = dict[tuple[str, int], Mistakes]


def mistakes_later(sandbox: Sandbox, group: Group, time_limit: float | None, cache: MutantCache | None,
                   late: set[str]) -> tuple[KnownMistakes, Callable[[], tuple[SlipRun, ...]]]:
    """The known mistakes and the slipped engines, each run once and only when a diagnosis asks: a submission whose
    failed checks only raised (one that did not load) asks for neither, and with a seed of its own nothing else
    would have run them (a child per mistake). A diagnosis that compares values runs only the mistakes that can fit
    the student, once this process has seen every mistake of the exercise run (`Mistakes.could_fit`). `late`
    gets the mistakes this diagnosis asked for whose runs, or whose own localization, ran out of time twice."""
    entry = _entry(cache, group)

    def noted(runs: MutantRuns) -> MutantRuns:
        late.update(m.mutant.mistake for m in runs if m.run is None and m.mutant.mistake in entry.late)
        return runs

    def faults() -> Mapping[str, frozenset[tuple[str, str]]]:
        found = _faults(sandbox, group, time_limit)
        late.update(m.mistake for m in group.exercise.mutants if m.mistake not in found)
        return found

    return KnownMistakes(lambda: noted(entry.every(sandbox, time_limit)),
                         lambda passed, expected: noted(entry.could_fit(sandbox, time_limit, passed, expected)),
                         faults), entry.slips


def mistake_runs(sandbox: Sandbox, group: Group, time_limit: float | None,
                 cache: MutantCache | None = None, *, public_only: bool = False) -> MistakeRuns:
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
    entry = Mistakes(group, public_only=True) if public_only else _entry(cache, group)
    return MistakeRuns(entry.every(sandbox, time_limit), entry.slips)


def _entry(cache: MutantCache | None, group: Group) -> Mistakes:
    if cache is None:
        return Mistakes(group)
    key = (group.exercise.id, group.seed)
    if key not in cache:
        keep(cache, key, Mistakes(group))
    return cache[key]


def _sides(group: Group, public_only: bool) -> list[Group]:
    if public_only:
        return [part_of(group, "public")] if has_hidden([group], "cpu") else [group]
    return [group] if not has_hidden([group], "cpu") or hidden_last(group.exercise, "cpu") else \
        [part_of(group, "public"), part_of(group, "hidden")]


def _run_one(sandbox: Sandbox, mutant: Mutant, group: Group, sides: list[Group],
             time_limit: float | None) -> tuple[MutantRun, bool]:
    """The mistake's run, and whether it stopped early on either side."""
    facts = mutant_facts(sandbox, mutant, group.exercise, time_limit)
    if facts is None:
        return MutantRun(mutant, None), False
    results = [_twice_if_late(sandbox, facts.submission, side, time_limit) for side in sides]
    if any(out_of_time(result) for result in results):  # how far it got is the machine's doing: no evidence
        return MutantRun(mutant, None), True
    both = [result.groups[0] for result in results]
    stopped = any(result.stop is not None or result.groups[0].stop is not None for result in results)
    joined = observed(group.exercise, join_parts(group.exercise, both[0], both[1] if len(both) > 1 else None))
    return MutantRun(mutant, joined, facts.rules,
                     facts.faults, facts.distinctive), stopped


def _twice_if_late(sandbox: Sandbox, submission: Submission, side: Group, time_limit: float | None) -> RunResult:
    """A mistake's run; again where it ran out of time, which a busy machine alone can make it do."""
    result = sandbox.launch(submission, [side], device="cpu", time_limit=time_limit).result()
    if out_of_time(result):
        result = sandbox.launch(submission, [side], device="cpu", time_limit=time_limit).result()
    return result


def _faults(sandbox: Sandbox, group: Group, time_limit: float | None) -> Mapping[str, frozenset[tuple[str, str]]]:
    """Each known mistake's localized (method, how), run at this seed or not: what it is whatever the seed. One whose
    localization ran out of time twice is left out: its name is then withheld (grader.judge.diagnose.blame)."""
    found = {m.mutant.mistake: m.faults for m in released_runs(group.exercise, group.seed)}
    for mutant in group.exercise.mutants:
        facts = mutant_facts(sandbox, mutant, group.exercise, time_limit)
        if facts is None or not facts.unfinished:
            found[mutant.mistake] = facts.faults if facts is not None else frozenset()
    return found


#: each engine or tensor exercise's mistakes' failing probes, as this process first saw them run, by the exercise and
#: its files as they were then
_FAILING: dict[tuple[object, ...], dict[Path, frozenset[int]]] = {}


def _keep_failing(key: tuple[object, ...], exercise: Exercise, runs: MutantRuns,
                  expected: tuple[Expected, ...]) -> None:
    on = probes_to_run(exercise, "cpu")
    if len(_FAILING) >= 64:
        _FAILING.clear()
    _FAILING[key] = {run.mutant.path: frozenset(
        i for i in on if run.run is None or (got := run.run.probes[i]) is None or not passes(
            got, expected[i], exercise.probes[i].raises is not None, exercise.probes[i].tolerance))
        for run in runs}


#: entries a cache of expected values or mistakes' runs keeps: each exercise at one seed for a whole class, the
#: latest of a seed per submission (a server's worker grades for a whole term)
KEPT = 256


def keep(cache: dict[tuple[str, int], T], key: tuple[str, int], value: T) -> None:
    """Keep `value` under `key`; past KEPT entries, the oldest go."""
    cache[key] = value
    while len(cache) > KEPT:
        del cache[next(iter(cache))]
