"""What a diagnosis reads of one exercise, gathered once by the pipeline.

The student's runs, the expected values, the inputs and the source rules broken are there from the
start; the known mistakes' runs, the slipped engines, the localized faults and the syntax tree's
facts cost a run or a parse, so each is made the first time a pass asks for it, then kept (the
full diagnosis and the public one share them). `visible_to(audience)` narrows the evidence to what
an audience may know: the same passes (grader.judge.diagnose.passes) on the public checks'
evidence give what a student reads before the deadline.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from grader.core.exercise import Exercise, Mutant
from grader.core.numeric import Tolerance
from grader.judge.audience import Audience
from grader.judge.diagnose.matching import all_right
from grader.judge.names import Definitions
from grader.judge.oracle import Expected
from grader.judge.report import ExerciseResult
from grader.judge.run_rules import rule_breaks
from grader.run.inputs import Inputs
from grader.run.observed import GroupRun, ProbeRun

if TYPE_CHECKING:  # the passes these come with read the evidence
    from grader.judge.diagnose.faults import Fault
    from grader.judge.diagnose.slips import SlipRun

#: (method, how) of each fault a localization finds
Faulted = frozenset[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class MutantRun:
    """What one known mistake gave on the exercise's probes, and which source rules it breaks."""

    mutant: Mutant
    #: None when it could not be run
    run: GroupRun | None
    rules: frozenset[str] = frozenset()
    #: what localization finds wrong in it (grader.judge.diagnose.faults)
    faults: Faulted = frozenset()
    #: what its code does that the solution's does not
    #: (grader.judge.diagnose.matching); None: read from its file
    distinctive: frozenset[str] | None = None


MutantRuns = Sequence[MutantRun]


class KnownMistakes(Protocol):
    """An exercise's known mistakes at a seed, and its slipped engines: each run only when asked
    (grader.judge.mistake_runs)."""

    def every(self) -> MutantRuns:
        """Every known mistake's run."""
        ...

    def could_fit(self, passed: frozenset[int], expected: tuple[Expected, ...]) -> MutantRuns:
        """At least those that can fit a student who passed the checks of probes `passed`."""
        ...

    def faults(self) -> Mapping[str, Faulted]:
        """Each known mistake's localized faults, run or not."""
        ...

    def slips(self) -> Sequence[SlipRun]:
        """The reference engine with one slope's sign flipped (grader.judge.diagnose.slips)."""
        ...


@dataclass(frozen=True, slots=True)
class Given:
    """Known mistakes already run, and slipped engines already made."""

    runs: MutantRuns = ()
    slipped: Sequence[SlipRun] = ()

    def every(self) -> MutantRuns:
        return self.runs

    def could_fit(self, passed: frozenset[int], expected: tuple[Expected, ...]) -> MutantRuns:
        return self.runs

    def faults(self) -> Mapping[str, Faulted]:
        return {m.mutant.mistake: m.faults for m in self.runs}

    def slips(self) -> Sequence[SlipRun]:
        return self.slipped


def _no_facts() -> Definitions | None:
    return None


class OnDemand:
    """The evidence that costs a run or a parse, each made the first time a pass asks, then kept.

    `mistakes`: the known mistakes and the slipped engines; `faults`: the localization of the
    student's engine (a run in the sandbox); `facts`: the syntax tree's facts (grader.judge.names).
    """

    def __init__(
        self,
        mistakes: KnownMistakes = Given(),
        *,
        faults: Callable[[], Sequence[Fault]] = tuple,
        facts: Callable[[], Definitions | None] = _no_facts,
    ) -> None:
        self.mistakes = mistakes
        self.mutants = functools.cache(lambda: tuple(mistakes.every()))
        self.mutant_faults = functools.cache(mistakes.faults)
        self.slips = functools.cache(lambda: tuple(mistakes.slips()))
        self.faults = functools.cache(lambda: tuple(faults()))
        self.facts = functools.cache(facts)


#: the audiences that may know the hidden checks' verdicts and the student's records of them
SEES_HIDDEN = frozenset({Audience.INSTRUCTOR, Audience.STUDENT_AFTER_RELEASE})


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """Everything a diagnosis of one exercise may read."""

    exercise: Exercise
    #: the exercise's checks as scored: the failed ones are what the passes name
    result: ExerciseResult
    #: each probe's inputs and expected values
    inputs: tuple[Inputs, ...]
    expected: tuple[Expected, ...]
    #: the student's run of the exercise, by device
    runs: Mapping[str, GroupRun]
    #: the source rules the student's file breaks (grader.judge.rules)
    rules: frozenset[str] = frozenset()
    on_demand: OnDemand = field(default_factory=OnDemand)
    #: who it is narrowed for: an instructor may know everything
    audience: Audience = Audience.INSTRUCTOR
    #: each check that ran, by its index: its probe's index, and the run of its device
    ran: Mapping[int, tuple[int, GroupRun]] = field(init=False)
    #: the checks that ran and failed or raised: those a diagnosis names
    failing: frozenset[int] = field(init=False)

    def __post_init__(self) -> None:
        ran = {}
        for index, check in enumerate(self.result.checks):
            device = "cuda" if check.name.endswith(" [cuda]") else "cpu"
            name = check.name.removesuffix(" [cuda]")
            probe = _probe_named(self.exercise, name)
            run = self.runs.get(device)
            if check.status != "skipped" and probe is not None and run is not None:
                ran[index] = (probe, run)
        failing = frozenset(
            index for index in ran if self.result.checks[index].status in ("failed", "error")
        )
        object.__setattr__(self, "ran", ran)
        object.__setattr__(self, "failing", failing)

    def probe_index(self, index: int) -> int:
        return self.ran[index][0]

    def got(self, index: int) -> ProbeRun | None:
        """What the student's run recorded for check `index`."""
        probe_index, run = self.ran[index]
        return run.probes[probe_index]

    def tolerance(self, index: int) -> Tolerance:
        """The tolerance check `index` was scored with: its probe's, on its device."""
        probe = self.exercise.probes[self.probe_index(index)]
        cuda = self.result.checks[index].name.endswith(" [cuda]")
        return probe.cuda_tolerance if cuda else probe.tolerance

    def has_values(self, index: int) -> bool:
        """Check `index` ran to its end and observed something: a failure of values, not an
        error."""
        got = self.got(index)
        return (
            self.result.checks[index].status == "failed"
            and got is not None
            and got.error is None
            and got.observations is not None
        )

    def broken(self, index: int) -> tuple[str, ...]:
        """The rules of autograd or torch's operators that check `index`'s run breaks."""
        probe_index = self.probe_index(index)
        return rule_breaks(self.exercise, self.exercise.probes[probe_index], self.got(index))

    def all_right(self, index: int) -> bool:
        """Every value of check `index` is right (a check can fail on right values: a rule)."""
        probe_index, run = self.ran[index]
        return all_right(run, probe_index, self.expected[probe_index], self.tolerance(index))

    def mutants(self) -> MutantRuns:
        """Every known mistake's run."""
        return self.on_demand.mutants()

    def could_fit(self, passed: frozenset[int]) -> MutantRuns:
        """At least the known mistakes that can fit a student who passed the probes `passed`."""
        return self.on_demand.mistakes.could_fit(passed, self.expected)

    def mutant_faults(self) -> Mapping[str, Faulted]:
        return self.on_demand.mutant_faults()

    def slips(self) -> tuple[SlipRun, ...]:
        return self.on_demand.slips()

    def faults(self) -> tuple[Fault, ...]:
        """The student's engine's faults, localized to its rules."""
        return self.on_demand.faults()

    def facts(self) -> Definitions | None:
        """What the submission's syntax tree settles; None where it was not read."""
        return self.on_demand.facts()

    def visible_to(self, audience: Audience) -> Evidence:
        """The evidence `audience` may know: without the hidden checks, and without the student's
        records of the hidden probes, for one who may not know their verdicts yet (over every
        check, a public check's diagnosis would say something of the hidden verdicts)."""
        if audience in SEES_HIDDEN or all(c.visibility != "hidden" for c in self.result.checks):
            return self
        hidden = {i for i, p in enumerate(self.exercise.probes) if p.visibility == "hidden"}
        runs = {}
        for device, run in self.runs.items():
            kept = tuple(None if i in hidden else p for i, p in enumerate(run.probes))
            runs[device] = dataclasses.replace(run, probes=kept)
        checks = tuple(c for c in self.result.checks if c.visibility != "hidden")
        return Evidence(
            exercise=self.exercise,
            result=dataclasses.replace(self.result, checks=checks),
            inputs=self.inputs,
            expected=self.expected,
            runs=runs,
            rules=self.rules,
            on_demand=self.on_demand,
            audience=audience,
        )


def _probe_named(exercise: Exercise, name: str) -> int | None:
    for index, probe in enumerate(exercise.probes):
        if probe.name == name:
            return index
    return None
