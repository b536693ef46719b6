"""What the known mistakes and the slipped engines give at a seed: each run once per exercise and
seed, and only when a diagnosis asks (the pipeline hands the diagnosis how to make them, not the
runs); and what a known mistake's file is whatever the seed, read once per process.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from grader.core.errors import GraderError
from grader.core.exercise import Exercise, Mutant
from grader.judge.diagnose.evidence import Faulted, MutantRun, MutantRuns
from grader.judge.diagnose.faults import faults
from grader.judge.diagnose.localize import localize, out_of_time
from grader.judge.diagnose.matching import distinctive, passes
from grader.judge.diagnose.released_mistakes import released_runs
from grader.judge.diagnose.slips import SlipRun, slip_runs
from grader.judge.hidden_runs import group_part, has_hidden_part, join_parts, public_part_first
from grader.judge.library.repositories import submission_of
from grader.judge.library.standin import observed
from grader.judge.names import definitions
from grader.judge.oracle import Expected
from grader.judge.rules import check_source
from grader.run.observed import RunResult
from grader.run.read.load import Submission
from grader.run.sandbox import Group, Sandbox, probes_to_run

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MistakeRuns:
    """What each known mistake (in the sandbox) and each
    slipped engine (here) give on an exercise's probes."""

    mutants: MutantRuns
    #: the slipped engines, computed once asked for (a diagnosis
    #: asks only where no known mistake explains a check)
    slips: Callable[[], tuple[SlipRun, ...]]


class Mistakes:
    """One exercise's known mistakes at one seed, each run
    the first time it is asked for, and its slipped engines."""

    def __init__(self, group: Group, *, public_only: bool = False) -> None:
        self.group = group
        self.sides = _sides(group, public_only)
        self.slips = functools.cache(
            functools.partial(slip_runs, group.exercise, group.inputs, group.seed)
        )
        self._runs: dict[Path, MutantRun] = {}
        #: a mistake's run stopped early (its time, memory, a
        #: signal): what it failed may be the machine's doing
        self.stopped = False
        self._files: tuple[object, ...] | None = None
        #: the mistakes whose last run ran out of time
        #: twice, and so name nothing (noted in the report)
        self.late: set[str] = set()

    def run(self, sandbox: Sandbox, mutant: Mutant, time_limit: float | None) -> MutantRun:
        if mutant.path in self._runs:
            return self._runs[mutant.path]
        run, stopped = _run_one(sandbox, mutant, self.group, self.sides, time_limit)
        self.stopped = self.stopped or stopped
        if (
            run.run is not None
        ):  # one that ran out of time twice is asked again by the next diagnosis
            self._runs[mutant.path] = run
            self.late.discard(mutant.mistake)
        elif stopped:
            self.late.add(mutant.mistake)
        return run

    def files(self) -> tuple[object, ...]:
        """The exercise and its files as they were first asked
        for (once per entry): what _FAILING is kept under."""
        if self._files is None:
            exercise = self.group.exercise
            self._files = (
                exercise.id,
                stamp(exercise.folder / "exercise.yaml"),
                stamp(exercise.solution),
                *(stamp(m.path) for m in exercise.mutants),
            )
        return self._files

    def every(self, sandbox: Sandbox, time_limit: float | None) -> MutantRuns:
        return (
            *released_runs(self.group.exercise, self.group.seed),
            *(self.run(sandbox, m, time_limit) for m in self.group.exercise.mutants),
        )

    def could_fit(
        self,
        sandbox: Sandbox,
        time_limit: float | None,
        passed: frozenset[int],
        expected: tuple[Expected, ...],
    ) -> MutantRuns:
        """At least every mistake that can fit a student who passed the checks of the
        probes `passed`: those that fail none of them where this process has seen each
        mistake's failing probes (at any seed: they are the same at every seed,
        tests/test_mutant_runs.py), else all of them, whose failing probes are kept then."""
        exercise = self.group.exercise
        key = self.files()
        failing = None if exercise.kind.torch else _FAILING.get(key)
        if failing is None:
            runs = self.every(sandbox, time_limit)
            # a torch mistake's failing checks are not held to be the same at every
            # seed; and what a run stopped early failed is not kept for the
            # process's life: a loaded machine would leave that mistake out for good
            if not exercise.kind.torch and not self.stopped:
                _keep_failing(key, exercise, runs, expected)
            return runs
        return (
            *released_runs(exercise, self.group.seed),
            *(
                self.run(sandbox, m, time_limit)
                for m in exercise.mutants
                if m.path not in failing or not failing[m.path] & passed
            ),
        )


#: the mistakes by (exercise id, seed), each run at
#: most once: the same for every student of that seed
MutantCache = dict[tuple[str, int], Mistakes]


@dataclass(frozen=True, slots=True)
class MistakesInSandbox:
    """One exercise's known mistakes and slipped engines as a diagnosis asks for them
    (grader.judge.diagnose.evidence.KnownMistakes): run in `sandbox`, kept in `entry`.

    A submission whose failed checks only raised (one that did not load) asks for none, and
    with a seed of its own nothing else would have run them (a child per mistake). A diagnosis
    that compares values runs only the mistakes that can fit the student, once this process has
    seen every mistake of the exercise run (`Mistakes.could_fit`). `late` gets the mistakes
    asked for whose runs, or whose own localization, ran out of time twice."""

    sandbox: Sandbox
    entry: Mistakes
    time_limit: float | None
    late: set[str]

    def every(self) -> MutantRuns:
        return self._noted(self.entry.every(self.sandbox, self.time_limit))

    def could_fit(self, passed: frozenset[int], expected: tuple[Expected, ...]) -> MutantRuns:
        return self._noted(self.entry.could_fit(self.sandbox, self.time_limit, passed, expected))

    def faults(self) -> Mapping[str, Faulted]:
        group = self.entry.group
        found = _faults(self.sandbox, group, self.time_limit)
        self.late.update(m.mistake for m in group.exercise.mutants if m.mistake not in found)
        return found

    def slips(self) -> Sequence[SlipRun]:
        return self.entry.slips()

    def _noted(self, runs: MutantRuns) -> MutantRuns:
        late = self.entry.late
        self.late.update(
            m.mutant.mistake for m in runs if m.run is None and m.mutant.mistake in late
        )
        return runs


def known_mistakes(
    sandbox: Sandbox,
    group: Group,
    time_limit: float | None,
    cache: MutantCache | None,
    late: set[str],
) -> MistakesInSandbox:
    """The known mistakes and the slipped engines of `group`'s exercise at its seed, each run
    once (per `cache`) and only when a diagnosis asks."""
    return MistakesInSandbox(sandbox, _entry(cache, group), time_limit, late)


def mistake_runs(
    sandbox: Sandbox,
    group: Group,
    time_limit: float | None,
    cache: MutantCache | None = None,
    *,
    public_only: bool = False,
) -> MistakeRuns:
    """Each known mistake and each slipped engine on the
    student's inputs, once per exercise and seed (CPU).

    Mutants are the instructor's code, but a mistake can loop or crash: they run in the
    sandbox too. A mistake's checks meet the state its earlier checks left, as the student's
    do (grader.run.sandbox.probes_to_run), on every check (which checks a mistake fails is
    evidence too): in one child where every public check comes before the hidden ones (then
    one run gives each check's record as the student's two runs do), else its public and its
    hidden checks apart, as the student's ran. The slipped engines are the reference engine
    (grader.judge.diagnose.slips) and run here. A released pack has no mutants: it brings
    what they gave at its seed (grader.judge.diagnose.released_mistakes).

    `public_only`: their public checks alone (all a pack keeps of them), in
    half the children; never cached, since grading needs the hidden ones too.
    """
    entry = Mistakes(group, public_only=True) if public_only else _entry(cache, group)
    return MistakeRuns(entry.every(sandbox, time_limit), entry.slips)


def _entry(cache: MutantCache | None, group: Group) -> Mistakes:
    if cache is None:
        return Mistakes(group)
    key = (group.exercise.id, group.seed)
    if key not in cache:
        add_bounded(cache, key, Mistakes(group))
    return cache[key]


def _sides(group: Group, public_only: bool) -> list[Group]:
    if public_only:
        return [group_part(group, "public")] if has_hidden_part([group], "cpu") else [group]
    return (
        [group]
        if not has_hidden_part([group], "cpu") or public_part_first(group.exercise, "cpu")
        else [group_part(group, "public"), group_part(group, "hidden")]
    )


def _run_one(
    sandbox: Sandbox, mutant: Mutant, group: Group, sides: list[Group], time_limit: float | None
) -> tuple[MutantRun, bool]:
    """The mistake's run, and whether it stopped early on either side."""
    facts = mutant_facts(sandbox, mutant, group.exercise, time_limit)
    if facts is None:
        return MutantRun(mutant, None), False
    results = [_twice_if_late(sandbox, facts.submission, side, time_limit) for side in sides]
    if any(
        out_of_time(result) for result in results
    ):  # how far it got is the machine's doing: no evidence
        return MutantRun(mutant, None), True
    both = [result.groups[0] for result in results]
    stopped = any(
        result.stop is not None or result.groups[0].stop is not None for result in results
    )
    joined = observed(
        group.exercise, join_parts(group.exercise, both[0], both[1] if len(both) > 1 else None)
    )
    return MutantRun(mutant, joined, facts.rules, facts.faults, facts.distinctive), stopped


def _twice_if_late(
    sandbox: Sandbox, submission: Submission, side: Group, time_limit: float | None
) -> RunResult:
    """A mistake's run; again where it ran out of
    time, which a busy machine alone can make it do."""
    result = sandbox.launch(submission, [side], device="cpu", time_limit=time_limit).result()
    if out_of_time(result):
        result = sandbox.launch(submission, [side], device="cpu", time_limit=time_limit).result()
    return result


def _faults(sandbox: Sandbox, group: Group, time_limit: float | None) -> Mapping[str, Faulted]:
    """Each known mistake's localized (method, how), run at this seed or not:
    what it is whatever the seed. One whose localization ran out of time twice
    is left out: its name is then withheld (grader.judge.diagnose.blame)."""
    found = {m.mutant.mistake: m.faults for m in released_runs(group.exercise, group.seed)}
    for mutant in group.exercise.mutants:
        facts = mutant_facts(sandbox, mutant, group.exercise, time_limit)
        if facts is None or not facts.unfinished:
            found[mutant.mistake] = facts.faults if facts is not None else frozenset()
    return found


@dataclass(frozen=True, slots=True)
class MutantFacts:
    """What a mutant is whatever the seed: its file read, the source rules it breaks, what
    its code does that the solution's does not, and for an engine mistake what localization
    finds wrong in it (grader.judge.diagnose.faults), as (method, how). Found once, not for
    every student with a seed of their own: every mutant of this course's engine exercises
    localizes to the same faults at every seed (tests/test_mutant_runs.py)."""

    submission: Submission
    rules: frozenset[str]
    distinctive: frozenset[str]
    faults: frozenset[tuple[str, str]]
    #: its localization ran out of time twice (grader.judge.diagnose.localize): `faults`
    #: is no evidence, and these facts are not kept, so that the next diagnosis asks again
    unfinished: bool = False


#: a mutant's facts by its exercise, its file and the
#: solution's, as they were when read (an edit reads them again)
_FACTS: dict[tuple[object, ...], MutantFacts | None] = {}
#: the seed a mutant is localized at
LOCALIZED_AT = 0


def mutant_facts(
    sandbox: Sandbox, mutant: Mutant, exercise: Exercise, time_limit: float | None
) -> MutantFacts | None:
    """The mutant's facts; None where its file cannot be read."""
    key = (exercise.id, exercise.source, stamp(mutant.path), stamp(exercise.solution))
    if key not in _FACTS:
        try:
            submission = submission_of(exercise, mutant.path)
        except GraderError:
            facts = None
        else:
            # an engine mistake's own localization: blame keeps its name only where it agrees
            located = localize(sandbox, submission, exercise, LOCALIZED_AT, time_limit)
            defined = definitions(submission.cells)
            found = (
                frozenset(
                    (f.rule.method, f.rule.how)
                    for f in faults(located, defined.grad_overwrites, defined.stepped)
                )
                if located is not None
                else frozenset()
            )
            facts = MutantFacts(
                submission,
                frozenset(v.rule for v in check_source(submission.cells, exercise.source)),
                distinctive(mutant.path, exercise.solution),
                found,
                located is not None and located.unfinished,
            )
            if facts.unfinished:
                return facts
        if len(_FACTS) >= 512:
            _FACTS.clear()
        _FACTS[key] = facts
    return _FACTS[key]


def stamp(path: Path | None) -> tuple[object, ...]:
    try:
        info = os.stat(path) if path is not None else None
    except OSError:
        return (str(path),)
    return (
        (str(path),) if info is None else (str(path), info.st_mtime_ns, info.st_size, info.st_ino)
    )


#: each engine or tensor exercise's mistakes' failing probes, as this process
#: first saw them run, by the exercise and its files as they were then
_FAILING: dict[tuple[object, ...], dict[Path, frozenset[int]]] = {}


def _keep_failing(
    key: tuple[object, ...], exercise: Exercise, runs: MutantRuns, expected: tuple[Expected, ...]
) -> None:
    on = probes_to_run(exercise, "cpu")
    if len(_FAILING) >= 64:
        _FAILING.clear()
    _FAILING[key] = {
        run.mutant.path: frozenset(
            i
            for i in on
            if run.run is None
            or (got := run.run.probes[i]) is None
            or not passes(
                got,
                expected[i],
                exercise.probes[i].raises is not None,
                exercise.probes[i].tolerance,
            )
        )
        for run in runs
    }


#: entries a cache of expected values or mistakes' runs keeps: each exercise at one seed for a
#: whole class, the latest of a seed per submission (a server's worker grades for a whole term)
KEPT = 256


def add_bounded(cache: dict[tuple[str, int], T], key: tuple[str, int], value: T) -> None:
    """Keep `value` under `key`; past KEPT entries, the oldest go."""
    cache[key] = value
    while len(cache) > KEPT:
        del cache[next(iter(cache))]
