"""The grading pipeline, top to bottom: load, check the source, run in the sandbox, compute expected values, check."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader import __version__
from grader.check import ExerciseRun, Run, check_exercise, run_problems
from grader.diagnose import MutantRun, MutantRuns, diagnose_exercise
from grader.errors import GraderError
from grader.inputs import draw_inputs
from grader.load import Submission, load_submission
from grader.observed import RunResult
from grader.oracle import Expected, expected_values
from grader.report import ExerciseResult, Report
from grader.rules import check_source
from grader.sandbox import Group, Sandbox, runs_lean, runs_numpy
from grader.slips import SlipRun, slip_runs
from grader.spec import Device, Exercise

ALL_DEVICES: tuple[Device, ...] = ("cpu", "cuda")
_NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"


@dataclass(frozen=True, slots=True, kw_only=True)
class Graded:
    """One submission graded against one or more exercises, before it becomes a `Report`."""

    exercises: tuple[ExerciseResult, ...]
    problems: tuple[str, ...]
    output: str
    output_truncated: bool


def grade(path: Path, exercises: Sequence[Exercise], *, seed: int = 0, devices: Sequence[Device] = ALL_DEVICES,
          time_limit: float | None = None, sandbox: Sandbox | None = None, hide: Sequence[Path] = ()) -> Report:
    """Grade the submission at `path` against each exercise, from one run of it per device.

    `hide`: folders the submission must not see (the exercises, with their solutions), where it can.
    """
    submission = load_submission(path)
    if sandbox is None:
        with Sandbox(lean=runs_lean(exercises), numpy=runs_numpy(exercises),
                     hide=[*hide, *{e.folder.parent for e in exercises}]) as fresh:
            return grade(path, exercises, seed=seed, devices=devices, time_limit=time_limit, sandbox=fresh)
    started = time.perf_counter()  # a zygote still warming up is part of it: the student waited for it
    graded = grade_submission(sandbox, submission, exercises, seed=seed, devices=devices, time_limit=time_limit)
    return Report(
        submission=str(path),
        sha256=submission.sha256,
        seed=seed,
        exercises=graded.exercises,
        grader_version=__version__,
        seconds=time.perf_counter() - started,
        problems=graded.problems,
        notes=submission.notes,
        output=graded.output,
        output_truncated=graded.output_truncated,
    )


#: expected values by (exercise id, seed): the same for every student, so a batch worker computes them once
ExpectedCache = dict[tuple[str, int], tuple[Expected, ...]]


@dataclass(frozen=True, slots=True)
class MistakeRuns:
    """What each known mistake (in the sandbox) and each slipped engine (here) give on an exercise's probes."""

    mutants: MutantRuns
    slips: tuple[SlipRun, ...]


#: the mistakes' values by (exercise id, seed): the same for every student too
MutantCache = dict[tuple[str, int], MistakeRuns]


def grade_submission(sandbox: Sandbox, submission: Submission, exercises: Sequence[Exercise], *, seed: int,
                     devices: Sequence[Device] = ALL_DEVICES, time_limit: float | None = None,
                     cache: ExpectedCache | None = None, mutant_cache: MutantCache | None = None) -> Graded:
    groups = [Group(exercise, draw_inputs(exercise, seed), seed) for exercise in exercises]
    wanted = [d for d in ALL_DEVICES if any(d in p.devices for e in exercises for p in e.probes)]
    skipped: dict[Device, str] = {}
    for device in wanted:
        if device not in devices:
            skipped[device] = f"not requested (--device {'/'.join(devices)})"
        elif device == "cuda" and not cuda_available():
            skipped[device] = "CUDA is not available on this machine"
    launch = [d for d in wanted if d not in skipped]
    runs: dict[Device, RunResult] = {}
    pending = sandbox.launch(submission, groups, device=launch[0], time_limit=time_limit) if launch else None
    # Computed while the child works, and never inside it.
    expected = [_expected(g, seed, cache) for g in groups]
    if pending is not None:
        runs[launch[0]] = pending.result()
    for device in launch[1:]:
        runs[device] = sandbox.launch(submission, groups, device=device, time_limit=time_limit).result()

    results = []
    for index, group in enumerate(groups):
        per_device: dict[Device, Run] = {d: ExerciseRun(run, run.groups[index]) for d, run in runs.items()}
        per_device.update(skipped)
        scope = [name for name, _ in group.exercise.defines] if len(groups) > 1 else None
        violations = check_source(submission.cells, group.exercise.source, scope)
        result = check_exercise(group.exercise, group.inputs, expected[index], per_device, violations)
        if any(c.status in ("failed", "error") for c in result.checks) and runs:
            mistakes = _mistake_runs(sandbox, group, time_limit, mutant_cache)
            result = diagnose_exercise(group.exercise, result, group.inputs, expected[index],
                                       {d: run.groups[index] for d, run in runs.items()}, mistakes.mutants,
                                       frozenset(v.rule for v in violations), mistakes.slips)
        results.append(result)
    several = len(runs) > 1
    return Graded(
        exercises=tuple(results),
        problems=tuple(f"On {d.upper()}: {p}" if several else p for d, run in runs.items() for p in run_problems(run)),
        output="".join(f"--- on {d.upper()} ---\n{r.output}" if several and r.output else r.output
                       for d, r in runs.items()),
        output_truncated=any(r.output_truncated for r in runs.values()),
    )


def _mistake_runs(sandbox: Sandbox, group: Group, time_limit: float | None,
                  cache: MutantCache | None) -> MistakeRuns:
    """Each known mistake and each slipped engine on the student's inputs, once per exercise and seed (CPU).

    Mutants are the instructor's code, but a mistake can loop or crash: they run in the sandbox too.
    The slipped engines are the reference engine (grader.slips) and run here.
    """
    key = (group.exercise.id, group.seed)
    if cache is not None and key in cache:
        return cache[key]
    runs: list[MutantRun] = []
    for mutant in group.exercise.mutants:
        try:
            submission = load_submission(mutant.path)
        except GraderError:
            runs.append(MutantRun(mutant, None))
            continue
        result = sandbox.launch(submission, [group], device="cpu", time_limit=time_limit).result()
        rules = frozenset(v.rule for v in check_source(submission.cells, group.exercise.source))
        runs.append(MutantRun(mutant, result.groups[0], rules))
    mistakes = MistakeRuns(tuple(runs), slip_runs(group.exercise, group.inputs, group.seed))
    if cache is not None:
        cache[key] = mistakes
    return mistakes


def _expected(group: Group, seed: int, cache: ExpectedCache | None) -> tuple[Expected, ...]:
    # Central differences confirm an engine exercise's values here; the torch engine's confirmation
    # is `grade validate`'s, so that grading engine exercises never imports torch.
    if cache is None:
        return expected_values(group.exercise, group.inputs, seed=seed, torch_engine=False)
    key = (group.exercise.id, seed)
    if key not in cache:
        cache[key] = expected_values(group.exercise, group.inputs, seed=seed, torch_engine=False)
    return cache[key]


def cuda_available() -> bool:
    """Whether CUDA can be used, asked through NVML so that this process can still fork healthy children.

    torch's default check initialises the CUDA driver, after which forked children cannot use CUDA.
    """
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
