"""The grading pipeline, one phase after another: plan the runs, run the submission, score each
exercise, diagnose what failed, and assemble what its report is made of.

A session (grader.judge.session) calls it with what it keeps between submissions: the sandbox,
the devices, the time limit and the caches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TypedDict, Unpack

from grader.core.exercise import Device, Exercise
from grader.judge.check import ExerciseRun, Run, check_exercise, run_problems
from grader.judge.devices import ALL_DEVICES, cuda_available
from grader.judge.diagnose.faults import Fault, faults, hides_more
from grader.judge.diagnose.localize import OUT_OF_TIME, SEEDED, STEP, localize
from grader.judge.diagnose.public_diagnosis import diagnose_both
from grader.judge.diagnose.released_mistakes import stored_seed
from grader.judge.expected_cache import ExpectedStore
from grader.judge.hidden_runs import (
    has_hidden,
    hidden_integrity,
    in_two_parts,
    join_parts,
    loaded_groups,
    public_part,
    run_hidden_part,
)
from grader.judge.library.standin import observed
from grader.judge.library.trace import traced
from grader.judge.mistake_runs import MutantCache, keep, mistakes_later
from grader.judge.names import Definitions, definitions
from grader.judge.oracle import Expected, expected_values
from grader.judge.report import ExerciseResult, Graded
from grader.judge.rules import Violation, check_source, import_notes
from grader.run.confine.isolate import LEVELS, Level
from grader.run.inputs import draw_inputs
from grader.run.observed import GroupRun, Isolation, RunResult
from grader.run.read.load import Submission
from grader.run.sandbox import Group, RunSet, Sandbox, TwoPartRun, distinct_children, policy_of

#: expected values by (exercise id, seed): the same for every student, so a batch worker
#: computes them once
ExpectedCache = dict[tuple[str, int], tuple[Expected, ...]]
#: one device's run of each group: the run, and the group's index in it
DeviceRuns = list[tuple[RunResult, int]]


class Settings(TypedDict, total=False):
    """What the pipeline grades with, which a session keeps between submissions."""

    #: the devices to run on; a device the exercises use but not named here is skipped
    devices: Sequence[Device]
    time_limit: float | None
    #: expected values already computed, and where to keep new ones
    cache: ExpectedCache | None
    #: the known mistakes' runs, by exercise and seed
    mutant_cache: MutantCache | None
    #: expected values kept on disk (grader.judge.expected_cache)
    store: ExpectedStore | None


def required_isolation(exercises: Sequence[Exercise]) -> Level:
    """Landlock at least where there is something to hide (a course's solutions, mutants or hidden
    checks); nothing where there is not (a released pack on a student's own machine)."""
    for exercise in exercises:
        hidden = any(p.visibility == "hidden" for p in exercise.probes)
        if exercise.solution is not None or exercise.mutants or hidden:
            return "landlock"
    return "none"


def grade_submission(
    sandbox: Sandbox,
    submission: Submission,
    exercises: Sequence[Exercise],
    *,
    seed: int,
    **settings: Unpack[Settings],
) -> Graded:
    """Grade `submission` as `exercises` at `seed`, in `sandbox`: the pipeline, phase by phase."""
    tools = Tools(
        sandbox=sandbox,
        time_limit=settings.get("time_limit"),
        cache=settings.get("cache"),
        mutant_cache=settings.get("mutant_cache"),
        store=settings.get("store"),
    )
    planned = plan(submission, exercises, seed, settings.get("devices", ALL_DEVICES))
    runs = run(tools, planned)
    results, notes = examine(tools, planned, runs)
    return assemble(planned, runs, results, notes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Tools:
    """What the phases grade with."""

    sandbox: Sandbox
    time_limit: float | None = None
    cache: ExpectedCache | None = None
    mutant_cache: MutantCache | None = None
    store: ExpectedStore | None = None


# ---- plan ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Planned:
    """What will run: each exercise's group of probes, and on which devices."""

    submission: Submission
    seed: int
    groups: tuple[Group, ...]
    #: the devices to run on, in order
    launch: tuple[Device, ...]
    #: the devices the exercises use that this grading skips, and why
    skipped: Mapping[Device, str]


def plan(
    submission: Submission, exercises: Sequence[Exercise], seed: int, devices: Sequence[Device]
) -> Planned:
    """Each exercise's inputs at `seed`, and the devices its probes use: those not asked for, or
    not on this machine, are skipped, with why."""
    groups = tuple(Group(exercise, draw_inputs(exercise, seed), seed) for exercise in exercises)
    used: set[Device] = set()
    for exercise in exercises:
        for probe in exercise.probes:
            used.update(probe.devices)
    skipped: dict[Device, str] = {}
    for device in (d for d in ALL_DEVICES if d in used):
        if device not in devices:
            skipped[device] = f"not requested (--device {'/'.join(devices)})"
        elif device == "cuda" and not cuda_available():
            skipped[device] = "CUDA is not available on this machine"
    launch = tuple(d for d in ALL_DEVICES if d in used and d not in skipped)
    return Planned(submission=submission, seed=seed, groups=groups, launch=launch, skipped=skipped)


# ---- run ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Runs:
    """What the runs gave, and what the trusted side expects of them."""

    #: each group's expected values
    expected: tuple[tuple[Expected, ...], ...]
    #: per device: the public part's run of each group
    public: Mapping[Device, DeviceRuns]
    #: per device: the hidden part's runs
    hidden: Mapping[Device, list[RunResult]]
    #: per device: each exercise's run, both parts joined, as its checks read it
    views: Mapping[Device, list[ExerciseRun]]
    #: the first device's group runs, both parts joined, as the child sent them (traced)
    sent: tuple[GroupRun | None, ...]


def run(tools: Tools, planned: Planned) -> Runs:
    """Run the submission on each device: its public checks, then its hidden ones (one two-part
    run where they can share a child).

    Expected values are computed here, never in the child, while something else works: the
    child, or, while the zygote still warms up (a single `grade`), the zygote, since a child can
    start only once it is warm (from a course's checkout both import torch, and one after the
    other they cost twice).
    """
    expected = _all_expected(tools, planned) if tools.sandbox.warming() else None
    first = _launch_first(tools, planned)
    if expected is None:
        expected = _all_expected(tools, planned)
    public: dict[Device, DeviceRuns] = {}
    hidden: dict[Device, list[RunResult]] = {}
    views: dict[Device, list[ExerciseRun]] = {}
    sent: tuple[GroupRun | None, ...] = (None,) * len(planned.groups)
    for device in planned.launch:
        starts = first if device == planned.launch[0] else None
        public[device], hidden_part, apart = _run_on(tools, planned, device, starts)
        if apart is not None:
            hidden[device] = apart
        joined = _joined(planned.groups, public[device], hidden_part)
        if device == planned.launch[0]:
            sent = tuple(joined)
        views[device] = _views(planned.groups, public[device], joined)
    return Runs(expected=expected, public=public, hidden=hidden, views=views, sent=sent)


def _launch_first(tools: Tools, planned: Planned) -> TwoPartRun | RunSet | None:
    """The run on the first device, started: both parts in one child where they can share it."""
    if not planned.launch:
        return None
    device, groups = planned.launch[0], list(planned.groups)
    if in_two_parts(groups, device):
        return tools.sandbox.launch_two_parts(
            planned.submission,
            groups,
            hidden_groups=loaded_groups,
            device=device,
            time_limit=tools.time_limit,
        )
    return tools.sandbox.start(
        planned.submission,
        groups,
        device=device,
        time_limit=tools.time_limit,
        visibility=public_part(groups, device),
    )


def _run_on(
    tools: Tools, planned: Planned, device: Device, first: TwoPartRun | RunSet | None
) -> tuple[DeviceRuns, list[GroupRun | None], list[RunResult] | None]:
    """One device's public part, its hidden part's group runs, and the hidden part's own runs (None
    where it has none). `first`: the run already started on it."""
    groups = list(planned.groups)
    if isinstance(first, TwoPartRun):
        public = first.public()
        hidden_part, apart = first.hidden()
        return public, hidden_part, apart
    if first is None:
        visibility = public_part(groups, device)
        first = tools.sandbox.start(
            planned.submission,
            groups,
            device=device,
            time_limit=tools.time_limit,
            visibility=visibility,
        )
    public = first.results()
    if not has_hidden(groups, device):
        return public, [None] * len(groups), None
    hidden_part, apart = run_hidden_part(
        tools.sandbox, planned.submission, groups, device, tools.time_limit, public
    )
    return public, hidden_part, apart


def _joined(
    groups: Sequence[Group], public: DeviceRuns, hidden_part: Sequence[GroupRun | None]
) -> list[GroupRun]:
    """Each group's run with its hidden part's probes joined in."""
    joined = []
    for group, (found, k), hidden in zip(groups, public, hidden_part, strict=True):
        joined.append(join_parts(group.exercise, found.groups[k], hidden))
    return joined


def _views(
    groups: Sequence[Group], public: DeviceRuns, joined: Sequence[GroupRun]
) -> list[ExerciseRun]:
    views = []
    for group, (found, _), group_run in zip(groups, public, joined, strict=True):
        views.append(ExerciseRun(found, observed(group.exercise, group_run)))
    return views


def _all_expected(tools: Tools, planned: Planned) -> tuple[tuple[Expected, ...], ...]:
    return tuple(
        _expected(group, planned.seed, tools.cache, tools.store) for group in planned.groups
    )


def _expected(
    group: Group, seed: int, cache: ExpectedCache | None, store: ExpectedStore | None = None
) -> tuple[Expected, ...]:
    key = (group.exercise.id, seed)
    if cache is not None and key in cache:
        return cache[key]
    # Kept only where computing costs: a torch exercise's solution imports torch here, a tensor
    # exercise's central differences take tens of milliseconds. The reference scalar engine takes
    # 1-5 ms, less than hashing the entry's key; a pack's stored values are on disk already.
    exercise = group.exercise
    costly = exercise.expected is None and exercise.engine != "scalar"
    stored = store if costly else None
    values = stored.load(exercise, group.inputs, seed) if stored is not None else None
    if values is None:
        # Central differences confirm an engine exercise's values here; the torch engine's
        # confirmation is `grade validate`'s, so that grading engine exercises never imports torch.
        values = expected_values(exercise, group.inputs, seed=seed, torch_engine=False)
        if stored is not None:
            stored.save(exercise, group.inputs, seed, values)
    if cache is not None:
        keep(cache, key, values)
    return values


# ---- score, then diagnose -----------------------------------------------------------------------


def examine(
    tools: Tools, planned: Planned, runs: Runs
) -> tuple[list[ExerciseResult], tuple[str, ...]]:
    """Score each exercise, and diagnose each one that failed a check; with the notes on how its
    file was written (imports, a pack's seed) and on localizations that ran out of time."""
    cells = planned.submission.cells
    # the syntax tree's facts, for what errors and missing names mean: read once, if needed
    defined = definitions(cells) if _needs_definitions(runs) else None
    unfinished: list[str] = []  # exercises whose localization ran out of time twice (_localizer)
    late: set[str] = set()  # the known mistakes whose runs did (mistakes_later)
    results = []
    notes: tuple[str, ...] = ()
    for index, group in enumerate(planned.groups):
        scored = score(planned, runs, index, defined)
        notes += _file_notes(planned, group)
        failed = any(c.status in ("failed", "error") for c in scored.result.checks)
        if failed and runs.public:
            defined = defined or definitions(cells)
            scored = diagnose(tools, planned, runs, scored, Diagnosing(defined, unfinished, late))
        results.append(scored.result)
    results = traced([g.exercise for g in planned.groups], list(runs.sent), results)
    notes += _library_notes(planned)
    for exercise_id in unfinished:
        notes += (
            f"Exercise {exercise_id}: your code ran out of time on the grader's own small probes "
            f"of each operation, twice; no rule is named from them.",
        )
    for mistake in sorted(late):
        notes += (
            f"The grader's own run of the known mistake {mistake} ran out of time twice (a busy "
            f"machine): it names nothing here.",
        )
    return results, notes


@dataclass(frozen=True, slots=True)
class Scored:
    """One exercise scored: its result, and the rules of its source it broke."""

    index: int
    result: ExerciseResult
    violations: Sequence[Violation]


def score(planned: Planned, runs: Runs, index: int, defined: Definitions | None) -> Scored:
    """The exercise's checks scored on every device (a skipped one says why) and its source's
    rules."""
    group = planned.groups[index]
    per_device: dict[Device, Run] = {d: found[index] for d, found in runs.views.items()}
    per_device.update(planned.skipped)
    scope = [name for name, _ in group.exercise.defines] if len(planned.groups) > 1 else None
    violations = check_source(planned.submission.cells, group.exercise.source, scope)
    result = check_exercise(
        group.exercise, group.inputs, runs.expected[index], per_device, violations, defined
    )
    return Scored(index, result, violations)


@dataclass(frozen=True, slots=True)
class Diagnosing:
    """What diagnoses share across exercises: the file's facts, and, for notes, the exercises whose
    localization ran out of time and the known mistakes whose runs did."""

    defined: Definitions
    unfinished: list[str]
    late: set[str]


def diagnose(
    tools: Tools, planned: Planned, runs: Runs, scored: Scored, diagnosing: Diagnosing
) -> Scored:
    """Name the mistake behind each failed check (grader.judge.diagnose), with the known mistakes
    and slipped engines run only if it asks, and the faults localized only if it asks."""
    index, group = scored.index, planned.groups[scored.index]
    mutants, slips = mistakes_later(
        tools.sandbox, group, tools.time_limit, tools.mutant_cache, diagnosing.late
    )
    # code that ran out of time would run out again on the localization probes, and the student
    # would wait twice the limit for a name that a check without values cannot get anyway
    timed_out = any(_ran_out_of_time(found[index]) for found in runs.public.values())
    located: Callable[[], tuple[Fault, ...]] | tuple[()] = ()
    if not scored.violations and not timed_out:
        located = _localizer(tools, planned.submission, group, diagnosing)
    result = diagnose_both(
        group.exercise,
        scored.result,
        group.inputs,
        runs.expected[index],
        {d: found[index].group for d, found in runs.views.items()},
        mutants,
        frozenset(v.rule for v in scored.violations),
        slips,
        diagnosing.defined,
        located,
    )
    return Scored(index, result, scored.violations)


def _ran_out_of_time(found: tuple[RunResult, int]) -> bool:
    run_result, k = found
    stops = (run_result.stop, run_result.groups[k].stop)
    return any(stop is not None and stop.kind in OUT_OF_TIME for stop in stops)


def _needs_definitions(runs: Runs) -> bool:
    """Whether any run raised or missed a name, which the file's facts explain."""
    for found in runs.views.values():
        for view in found:
            raised = any(p is not None and p.error is not None for p in view.group.probes)
            if view.run.load_error or view.group.missing or raised:
                return True
    return False


def _localizer(
    tools: Tools, submission: Submission, group: Group, diagnosing: Diagnosing
) -> Callable[[], tuple[Fault, ...]]:
    """How to localize the submission's faults: one more run in the sandbox, made only if a
    diagnosis asks.

    Never beside the hidden checks, though that would save a child: what a localization reads is
    quoted in the visible diagnosis, and a process that has run the hidden checks could write
    their inputs into it (submissions/hostile/leaks_through_localization.py). A localization that
    ran out of time twice is no evidence (how far it got hangs on the machine's load): none of it
    is read, and the exercise goes in `unfinished`, for a note."""
    sandbox, limit, exercise = tools.sandbox, tools.time_limit, group.exercise

    def located() -> tuple[Fault, ...]:
        found = localize(sandbox, submission, exercise, group.seed, limit, kinds=("",))
        if found is None:
            return ()
        # only where the seed or the walk may hide more
        if not found.unfinished and hides_more(found):
            more = localize(sandbox, submission, exercise, group.seed, limit, kinds=(SEEDED, STEP))
            found = found if more is None else found.merged(more)
        if found.unfinished:
            diagnosing.unfinished.append(exercise.id)
            return ()
        defined = diagnosing.defined
        return faults(found, defined.grad_overwrites, defined.stepped)

    return located


def _file_notes(planned: Planned, group: Group) -> tuple[str, ...]:
    """What the file's imports and a pack's seed mean for this exercise."""
    submission, exercise = planned.submission, group.exercise
    siblings = [Path(s.label).stem for s in submission.siblings]
    permits = policy_of(exercise).permits
    notes = tuple(import_notes(submission.cells, permits, exercise.id, siblings))
    stored = stored_seed(exercise)
    if stored is not None and stored != planned.seed:
        notes += (
            f"Exercise {exercise.id}: this pack names known mistakes at --seed {stored} (and "
            f"they are named when your work is graded after you submit); at seed {planned.seed} "
            "it names patterns only.",
        )
    return notes


def _library_notes(planned: Planned) -> tuple[str, ...]:
    for group in planned.groups:
        if group.exercise.library is not None and group.exercise.solution is None:
            return (
                "This pack holds none of the course's reference code, so each check here runs "
                "your own code throughout: a mistake in one op can cost another op's checks. "
                "When your work is graded after you submit, each op's checks use the course's "
                "own for the rest.",
            )
    return ()


# ---- assemble -----------------------------------------------------------------------------------


def assemble(
    planned: Planned, runs: Runs, results: Sequence[ExerciseResult], notes: Sequence[str]
) -> Graded:
    """What the report is made of: the results, and what the runs said of the file as a whole
    (problems, printed output, isolation, notes and integrity), each child's once."""
    children = {d: distinct_children(found) for d, found in runs.public.items()}
    seen = list(chain.from_iterable(children.values()))
    apart = list(chain.from_iterable(runs.hidden.values()))
    several = len(runs.public) > 1
    # advice for the file as a whole: torch's where any exercise uses torch, else the exercises'
    # own engine's
    engines = {g.exercise.engine for g in planned.groups}
    engine = "torch" if "torch" in engines or len(engines) != 1 else next(iter(engines))
    return Graded(
        exercises=tuple(results),
        problems=_problems(children, several, engine),
        output=_output(children, several),
        output_truncated=any(r.output_truncated for r in seen),
        isolation=_weakest(r.isolation for r in [*seen, *apart]),
        notes=_notes(notes, seen),
        integrity=_integrity(seen, apart),
    )


def _problems(
    children: Mapping[Device, list[RunResult]], several: bool, engine: str
) -> tuple[str, ...]:
    problems = []
    for device, found in children.items():
        for number, child in enumerate(found):
            for problem in run_problems(child, first=number == 0, engine=engine):
                problems.append(f"On {device.upper()}: {problem}" if several else problem)
    return tuple(problems)


def _output(children: Mapping[Device, list[RunResult]], several: bool) -> str:
    """What the first child on each device printed."""
    output = ""
    for device, found in children.items():
        if not found:
            continue
        printed = found[0].output
        output += f"--- on {device.upper()} ---\n{printed}" if several and printed else printed
    return output


def _weakest(isolations: Iterable[Isolation | None]) -> Isolation | None:
    """The weakest isolation any run had: the lowest level, then the most limits it lacked."""
    known = [i for i in isolations if i]
    return min(known, key=lambda i: (LEVELS.index(i.level), -len(i.weaker_limits)), default=None)


def _notes(notes: Sequence[str], seen: Sequence[RunResult]) -> tuple[str, ...]:
    """The notes, each once: a note on an import the guard refused gives way to the refusal's."""
    refused: list[str] = []
    for child in seen:
        refused += child.refused_imports
    kept = [n for n in notes if not any(f"imports {r.split()[0]}," in n for r in refused)]
    for text in refused:
        kept.append(
            f"Your code imported {text}, which its exercise does not allow: it got a "
            f"placeholder that fails when used."
        )
    return tuple(dict.fromkeys(kept))


def _integrity(seen: Sequence[RunResult], apart: Sequence[RunResult]) -> tuple[str, ...]:
    """What the submission did against the grader, each once (`seen` in the public runs, `apart`
    in the hidden part's own): what only the hidden part saw is one withheld line, as for its
    refusals."""
    lines = []
    for child in seen:
        lines += [f"your code {text}; it was refused" for text in child.integrity]
    for child in seen:
        for stop in (child.stop, *(g.stop for g in child.groups)):
            if stop is not None and stop.kind == "forged-reply":
                lines.append(f"your code {stop.text}")
    engine_seen = engine_integrity(seen)
    engine_apart = [text for text in engine_integrity(apart) if text not in engine_seen]
    lines += hidden_integrity(seen, apart, also=bool(engine_apart))
    return tuple(dict.fromkeys(lines + engine_seen))


def engine_integrity(runs: Iterable[RunResult]) -> list[str]:
    """What the autograd record saw done around it (grader.run.child.evidence), in the words of
    `integrity`."""
    found = []
    for run_result in runs:
        for group in run_result.groups:
            for probe in group.probes:
                if probe is not None and probe.evidence is not None:
                    found.append(probe.evidence)
    lines = []
    if any(e.engine_replaced for e in found):
        lines.append(
            "your code replaced torch's Variable._execution_engine; the grader's record of "
            "autograd is kept apart from it, and what ran past the record does not count"
        )
    if any(e.tampered for e in found):
        lines.append(
            "your code sent the grader's record of autograd messages of its own; they were ignored"
        )
    if any(e.unseen_runs for e in found):
        lines.append(
            "your code ran torch's autograd engine out of the grader's sight (an engine of its "
            "own, or a swapped Variable._execution_engine); the gradients it made there do not "
            "count"
        )
    return lines
