"""The grading pipeline, top to bottom: load, check the source, run in the sandbox, compute expected values, check."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from grader.core.exercise import Device, Exercise
from grader.judge.check import ExerciseRun, Run, check_exercise, run_problems
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
from grader.judge.report import Graded, Report, build_report
from grader.judge.rules import check_source, import_notes
from grader.run.confine.isolate import LEVELS, Level
from grader.run.inputs import draw_inputs
from grader.run.observed import GroupRun, RunResult
from grader.run.read.load import Submission, load_submission
from grader.run.sandbox import Group, RunSet, Sandbox, TwoPartRun, distinct_children, policy_of

ALL_DEVICES: tuple[Device, ...] = ("cpu", "cuda")
_NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"
#: what CUDA needs to exist: NVIDIA's driver (also in containers), WSL's GPU, ROCm's (torch.cuda on AMD)
_GPU_DEVICE_FILES = ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg", "/dev/kfd")


def grade(path: Path | Submission, exercises: Sequence[Exercise], *, seed: int = 0,
          devices: Sequence[Device] = ALL_DEVICES, time_limit: float | None = None, sandbox: Sandbox | None = None,
          hide: Sequence[Path] = (), isolation: Level | None = None, store: ExpectedStore | None = None,
          seed_token: str | None = None) -> Report:
    """Grade the submission at `path` (or one already read) against each exercise, from one run of it per device.

    `hide`: folders the submission must not see (the exercises, with their solutions), where it can.
    `isolation`: the weakest confinement to accept (default: `required_isolation`); below it, the
    sandbox refuses (IsolationRefused, exit 2) before the submission runs.
    `store`: expected values kept on disk between calls (grader.judge.expected_cache), used only where the
    submission runs confined: with isolation `none` it runs as this user and could have written them.
    """
    submission = path if isinstance(path, Submission) else load_submission(path)
    if sandbox is None:
        minimum = isolation or required_isolation(exercises)
        with Sandbox(hide=[*hide, *{e.folder.parent for e in exercises}], minimum=minimum,
                     first=policy_of(exercises[0]) if exercises else None) as fresh:
            return grade(submission, exercises, seed=seed, devices=devices, time_limit=time_limit, sandbox=fresh,
                         store=store, seed_token=seed_token)
    started = time.perf_counter()  # a zygote still warming up is part of it: the student waited for it
    graded = grade_submission(sandbox, submission, exercises, seed=seed, devices=devices, time_limit=time_limit,
                              store=store if sandbox.mode.level != "none" else None)
    return build_report(graded, submission=str(submission.path), sha256=submission.sha256, seed=seed,
                        seconds=time.perf_counter() - started, notes=submission.notes, seed_token=seed_token)


def required_isolation(exercises: Sequence[Exercise]) -> Level:
    """Landlock at least where there is something to hide (a course's solutions, mutants or hidden checks);
    nothing where there is not (a released pack on a student's own machine)."""
    secret = any(e.solution is not None or e.mutants or any(p.visibility == "hidden" for p in e.probes)
                 for e in exercises)
    return "landlock" if secret else "none"


#: expected values by (exercise id, seed): the same for every student, so a batch worker computes them once
ExpectedCache = dict[tuple[str, int], tuple[Expected, ...]]


def grade_submission(sandbox: Sandbox, submission: Submission, exercises: Sequence[Exercise], *, seed: int,
                     devices: Sequence[Device] = ALL_DEVICES, time_limit: float | None = None,
                     cache: ExpectedCache | None = None, mutant_cache: MutantCache | None = None,
                     store: ExpectedStore | None = None) -> Graded:
    groups = [Group(exercise, draw_inputs(exercise, seed), seed) for exercise in exercises]
    wanted = [d for d in ALL_DEVICES if any(d in p.devices for e in exercises for p in e.probes)]
    skipped: dict[Device, str] = {}
    for device in wanted:
        if device not in devices:
            skipped[device] = f"not requested (--device {'/'.join(devices)})"
        elif device == "cuda" and not cuda_available():
            skipped[device] = "CUDA is not available on this machine"
    launch = [d for d in wanted if d not in skipped]
    runs: dict[Device, list[tuple[RunResult, int]]] = {}
    # Expected values are computed here, never in the child, while something else works: the child, or, while
    # the zygote still warms up (a single `grade`), the zygote, since a child can start only once it is warm
    # (from a course's checkout both import torch, and one after the other they cost twice).
    expected = [_expected(g, seed, cache, store) for g in groups] if sandbox.warming() else None
    first: TwoPartRun | RunSet | None = None
    if launch and in_two_parts(groups, launch[0]):
        first = sandbox.launch_two_parts(submission, groups, hidden_groups=loaded_groups, device=launch[0],
                                         time_limit=time_limit)
    elif launch:
        first = sandbox.start(submission, groups, device=launch[0], time_limit=time_limit,
                              visibility=public_part(groups, launch[0]))
    if expected is None:
        expected = [_expected(g, seed, cache, store) for g in groups]
    if isinstance(first, TwoPartRun):
        runs[launch[0]] = first.public()
    elif first is not None:
        runs[launch[0]] = first.results()
    hidden: dict[Device, list[RunResult]] = {}
    views: dict[Device, list[ExerciseRun]] = {}
    sent: list[GroupRun | None] = [None] * len(groups)  # the first device's, as the child sent it (traced)
    for device in launch:
        if device not in runs:
            runs[device] = sandbox.start(submission, groups, device=device, time_limit=time_limit,
                                         visibility=public_part(groups, device)).results()
        hidden_part: list[GroupRun | None] = [None] * len(groups)
        if isinstance(first, TwoPartRun) and device == launch[0]:
            hidden_part, hidden[device] = first.hidden()
        elif has_hidden(groups, device):
            hidden_part, hidden[device] = run_hidden_part(sandbox, submission, groups, device, time_limit,
                                                          runs[device])
        joined = [join_parts(g.exercise, run.groups[k], h)
                  for g, (run, k), h in zip(groups, runs[device], hidden_part, strict=True)]
        if device == launch[0]:
            sent = list(joined)
        views[device] = [ExerciseRun(run, observed(g.exercise, group))
                         for g, (run, _), group in zip(groups, runs[device], joined, strict=True)]

    results = []
    static_notes: tuple[str, ...] = ()
    unfinished: list[str] = []  # the exercises whose localization ran out of time twice (_localizer)
    # the syntax tree's facts, for what errors and missing names mean: read once, and only if needed
    needed = any(view.run.load_error or view.group.missing or any(p is not None and p.error is not None
                                                                    for p in view.group.probes)
                 for found in views.values() for view in found)
    defined = definitions(submission.cells) if needed else None
    for index, group in enumerate(groups):
        per_device: dict[Device, Run] = {d: found[index] for d, found in views.items()}
        per_device.update(skipped)
        scope = [name for name, _ in group.exercise.defines] if len(groups) > 1 else None
        violations = check_source(submission.cells, group.exercise.source, scope)
        static_notes += import_notes(submission.cells, policy_of(group.exercise).permits, group.exercise.id,
                                     [Path(s.label).stem for s in submission.siblings])
        if (stored := stored_seed(group.exercise)) is not None and stored != seed:
            static_notes += (f"Exercise {group.exercise.id}: this pack names known mistakes at --seed {stored} "
                             f"(and they are named when your work is graded after you submit); at seed {seed} it "
                             "names patterns only.",)
        result = check_exercise(group.exercise, group.inputs, expected[index], per_device, violations, defined)
        if any(c.status in ("failed", "error") for c in result.checks) and runs:
            defined = defined or definitions(submission.cells)
            mutants, slips = mistakes_later(sandbox, group, time_limit, mutant_cache)
            # code that ran out of time would run out again on the localization probes, and the student would
            # wait twice the limit for a name that a check without values cannot get anyway
            timed_out = any(stop is not None and stop.kind in OUT_OF_TIME for found in runs.values()
                            for run, k in [found[index]] for stop in (run.stop, run.groups[k].stop))
            result = diagnose_both(group.exercise, result, group.inputs, expected[index],
                                   {d: found[index].group for d, found in views.items()},
                                   mutants, frozenset(v.rule for v in violations), slips,
                                   defined, () if violations or timed_out else
                                   _localizer(sandbox, submission, group, time_limit, defined, unfinished))
        results.append(result)
    results = traced([g.exercise for g in groups], sent, results)
    static_notes += tuple(f"Exercise {exercise_id}: your code ran out of time on the grader's own small probes of "
                          f"each operation, twice; no rule is named from them." for exercise_id in unfinished)
    several = len(runs) > 1
    # advice for the file as a whole: torch's where any exercise uses torch, else the exercises' own engine's
    engines = {g.exercise.engine for g in groups}
    engine = "torch" if "torch" in engines or len(engines) != 1 else next(iter(engines))
    children = {d: distinct_children(found) for d, found in runs.items()}
    seen = [r for child_runs in children.values() for r in child_runs]
    apart_runs = [r for found in hidden.values() for r in found]
    # what the record saw only in the hidden run is the hidden run's: one withheld line, as for its refusals
    engine_seen = engine_integrity(seen)
    engine_apart = [text for text in engine_integrity(apart_runs) if text not in engine_seen]
    return Graded(
        exercises=tuple(results),
        problems=tuple(f"On {d.upper()}: {p}" if several else p for d, child_runs in children.items()
                       for i, run in enumerate(child_runs) for p in run_problems(run, first=i == 0, engine=engine)),
        output="".join(f"--- on {d.upper()} ---\n{r[0].output}" if several and r[0].output else r[0].output
                       for d, r in children.items() if r),
        output_truncated=any(r.output_truncated for child_runs in children.values() for r in child_runs),
        isolation=min((r.isolation for child_runs in [*children.values(), *hidden.values()] for r in child_runs
                       if r.isolation), key=lambda i: (LEVELS.index(i.level), -len(i.weaker_limits)), default=None),
        notes=tuple(dict.fromkeys(
            [n for n in static_notes if not any(f"imports {r.split()[0]}," in n for child_runs in children.values()
                                                for run in child_runs for r in run.refused_imports)]
            + [f"Your code imported {text}, which its exercise does not allow: it got a placeholder that fails "
             f"when used." for child_runs in children.values() for r in child_runs for text in r.refused_imports]
            )),
        integrity=tuple(dict.fromkeys(
            [f"your code {text}; it was refused" for child_runs in children.values() for r in child_runs
             for text in r.integrity]
            + [f"your code {stop.text}" for child_runs in children.values() for r in child_runs
               for stop in (r.stop, *(g.stop for g in r.groups)) if stop is not None and stop.kind == "forged-reply"]
            + hidden_integrity(seen, apart_runs, also=bool(engine_apart)) + engine_seen)),
    )


def engine_integrity(runs: Iterable[RunResult]) -> list[str]:
    """What the autograd record saw done around it (grader.run.child.evidence), in the words of `integrity`."""
    found = [e for run in runs for group in run.groups for p in group.probes if p is not None
             for e in [p.evidence] if e is not None]
    lines = []
    if any(e.engine_replaced for e in found):
        lines.append("your code replaced torch's Variable._execution_engine; the grader's record of autograd is "
                     "kept apart from it, and what ran past the record does not count")
    if any(e.tampered for e in found):
        lines.append("your code sent the grader's record of autograd messages of its own; they were ignored")
    if any(e.unseen_runs for e in found):
        lines.append("your code ran torch's autograd engine out of the grader's sight (an engine of its own, or "
                     "a swapped Variable._execution_engine); the gradients it made there do not count")
    return lines


def _localizer(sandbox: Sandbox, submission: Submission, group: Group, time_limit: float | None,
               defined: Definitions, unfinished: list[str]) -> Callable[[], tuple[Fault, ...]]:
    """How to localize the submission's faults: one more run in the sandbox, made only if a diagnosis asks.

    Never beside the hidden checks, though that would save a child: what a localization reads is quoted in
    the visible diagnosis, and a process that has run the hidden checks could write their inputs into it
    (submissions/hostile/leaks_through_localization.py). A localization that ran out of time twice is no
    evidence (how far it got hangs on the machine's load): none of it is read, and the exercise goes in
    `unfinished`, for a note."""
    def run() -> tuple[Fault, ...]:
        located = localize(sandbox, submission, group.exercise, group.seed, time_limit, kinds=("",))
        if located is None:
            return ()
        if not located.unfinished and hides_more(located):  # only where the seed or the walk may hide more
            more = localize(sandbox, submission, group.exercise, group.seed, time_limit, kinds=(SEEDED, STEP))
            located = located if more is None else located.merged(more)
        if located.unfinished:
            unfinished.append(group.exercise.id)
            return ()
        return faults(located, defined.grad_overwrites, defined.stepped)
    return run


def _expected(group: Group, seed: int, cache: ExpectedCache | None,
              store: ExpectedStore | None = None) -> tuple[Expected, ...]:
    key = (group.exercise.id, seed)
    if cache is not None and key in cache:
        return cache[key]
    # Kept only where computing costs: a torch exercise's solution imports torch here, a tensor exercise's
    # central differences take tens of milliseconds. The reference scalar engine takes 1-5 ms, less than
    # hashing the entry's key; a pack's stored values are on disk already.
    stored = store if store is not None and group.exercise.expected is None \
        and group.exercise.engine != "scalar" else None
    values = stored.load(group.exercise, group.inputs, seed) if stored is not None else None
    if values is None:
        # Central differences confirm an engine exercise's values here; the torch engine's confirmation
        # is `grade validate`'s, so that grading engine exercises never imports torch.
        values = expected_values(group.exercise, group.inputs, seed=seed, torch_engine=False)
        if stored is not None:
            stored.save(group.exercise, group.inputs, seed, values)
    if cache is not None:
        keep(cache, key, values)
    return values


def cuda_available() -> bool:
    """Whether CUDA can be used, asked through NVML so that this process can still fork healthy children.

    torch's default check initialises the CUDA driver, after which forked children cannot use CUDA.
    Where no GPU driver has made its device files, the answer is no without importing torch here, which
    costs as much as grading a torch exercise.
    """
    if not any(os.path.exists(path) for path in _GPU_DEVICE_FILES):
        return False
    import torch

    previous = os.environ.get(_NVML_CHECK)
    os.environ[_NVML_CHECK] = "1"
    try:
        return bool(torch.cuda.is_available())
    finally:
        if previous is None:
            del os.environ[_NVML_CHECK]
        else:
            os.environ[_NVML_CHECK] = previous
