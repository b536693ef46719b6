"""The grading pipeline, top to bottom: load, run in the sandbox, compute expected values, check."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from grader import __version__
from grader.check import check_exercise
from grader.inputs import draw_inputs
from grader.load import Submission, load_submission
from grader.oracle import expected_values
from grader.report import ExerciseResult, Report
from grader.sandbox import Sandbox
from grader.spec import Exercise


def grade(path: Path, exercises: Sequence[Exercise], *, seed: int = 0, time_limit: float | None = None,
          sandbox: Sandbox | None = None) -> Report:
    """Grade the submission at `path` against each exercise; student mistakes are in the report."""
    started = time.perf_counter()
    submission = load_submission(path)
    if sandbox is None:
        with Sandbox() as fresh:
            results = [grade_exercise(fresh, submission, e, seed=seed, time_limit=time_limit) for e in exercises]
    else:
        results = [grade_exercise(sandbox, submission, e, seed=seed, time_limit=time_limit) for e in exercises]
    return Report(
        submission=str(path),
        sha256=submission.sha256,
        seed=seed,
        exercises=tuple(results),
        grader_version=__version__,
        seconds=time.perf_counter() - started,
    )


def grade_exercise(sandbox: Sandbox, submission: Submission, exercise: Exercise, *, seed: int,
                   time_limit: float | None = None) -> ExerciseResult:
    inputs = draw_inputs(exercise, seed)
    pending = sandbox.launch(submission, exercise, inputs, time_limit=time_limit)
    expected = expected_values(exercise, inputs)  # computed while the child works, never inside it
    return check_exercise(exercise, inputs, expected, pending.result())
