"""The grading pipeline, top to bottom: load, check the source, run in the sandbox, compute expected values, check."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from grader import __version__
from grader.check import Run, check_exercise
from grader.inputs import draw_inputs
from grader.load import Submission, load_submission
from grader.oracle import expected_values
from grader.report import ExerciseResult, Report
from grader.rules import check_source
from grader.sandbox import Sandbox
from grader.spec import Device, Exercise

ALL_DEVICES: tuple[Device, ...] = ("cpu", "cuda")
_NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"


def grade(path: Path, exercises: Sequence[Exercise], *, seed: int = 0, devices: Sequence[Device] = ALL_DEVICES,
          time_limit: float | None = None, sandbox: Sandbox | None = None) -> Report:
    """Grade the submission at `path` against each exercise; student mistakes are in the report."""
    submission = load_submission(path)
    if sandbox is None:
        with Sandbox() as fresh:
            return grade(path, exercises, seed=seed, devices=devices, time_limit=time_limit, sandbox=fresh)
    started = time.perf_counter()  # after the warm-up: the report times the grading itself
    results = [grade_exercise(sandbox, submission, e, seed=seed, devices=devices, time_limit=time_limit)
               for e in exercises]
    return Report(
        submission=str(path),
        sha256=submission.sha256,
        seed=seed,
        exercises=tuple(results),
        grader_version=__version__,
        seconds=time.perf_counter() - started,
    )


def grade_exercise(sandbox: Sandbox, submission: Submission, exercise: Exercise, *, seed: int,
                   devices: Sequence[Device] = ALL_DEVICES, time_limit: float | None = None) -> ExerciseResult:
    inputs = draw_inputs(exercise, seed)
    runs: dict[Device, Run] = {}
    wanted = [d for d in ALL_DEVICES if any(d in probe.devices for probe in exercise.probes)]
    for device in wanted:
        if device not in devices:
            runs[device] = f"not requested (--device {'/'.join(devices)})"
        elif device == "cuda" and not cuda_available():
            runs[device] = "CUDA is not available on this machine"
    launch = [d for d in wanted if d not in runs]
    pending = sandbox.launch(submission, exercise, inputs, seed=seed, device=launch[0],
                             time_limit=time_limit) if launch else None
    expected = expected_values(exercise, inputs, seed=seed)  # computed while the child works, never inside it
    if pending is not None:
        runs[launch[0]] = pending.result()
    for device in launch[1:]:
        runs[device] = sandbox.launch(submission, exercise, inputs, seed=seed, device=device,
                                      time_limit=time_limit).result()
    return check_exercise(exercise, inputs, expected, runs, check_source(submission.source, exercise.source))


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
