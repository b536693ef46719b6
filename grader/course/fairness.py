"""Prove an exercise fair: every correct answer written
another way scores full marks, unnamed, at many seeds.

`grade validate` proves an exercise sound with its solution, its starter and its mutants;
this is the other half. Each file of the exercise's `variants/` is a correct answer as a
careful student may write it (float32 where the exercise accepts it, another formula,
another traversal, an optimizer for a manual step); where the exercise accepts float32 its
solution is graded in float32 too (grader.judge.precision.in_float32). Each is graded at
every seed asked for, and a lost point or a name, on any check at any seed, fails the
exercise. The float32 slack itself is looked at as well: a check where float32 is off by
more than 1% at some seed sits where float32 is ill-conditioned, and its inputs should move.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.core.compare import fmt, fmt_points
from grader.core.exercise import Exercise
from grader.core.values import ErrorInfo
from grader.judge.library.repositories import submission_of
from grader.judge.oracle import expected_values
from grader.judge.precision import ILL_CONDITIONED, MARGIN, in_float32
from grader.judge.report import ExerciseResult
from grader.run.inputs import draw_inputs
from grader.run.read.load import SourceCell, Submission

#: the seeds `grade validate` grades each variant at, unless told otherwise (--variant-seeds)
VARIANT_SEEDS = 40
#: a finding: whether it holds, and what it says
Found = tuple[bool, str]
#: grades a submission at a seed: the exercise's result, and the problems of the file as a whole
Grader = Callable[[Submission, int], tuple[ExerciseResult, tuple[str, ...]]]


def variants_hold(exercise: Exercise, grade: Grader, seeds: Sequence[int]) -> list[Found]:
    """Each variant, and the solution in float32 where
    the exercise accepts float32, at every seed."""
    found: list[Found] = []
    if not exercise.variants:
        found.append(
            (
                False,
                "no variants/: write at least one correct answer another way (float32 where the "
                "exercise accepts it, another formula or traversal) in "
                f"{exercise.folder / 'variants'}, so that validate can prove a correct answer "
                "other than the solution scores full marks",
            )
        )
    # a library course's variant is a one-function patch of its reference, as its known mistakes are
    answers = [
        (f"variant {path.name}", submission_of(exercise, path)) for path in exercise.variants
    ]
    if exercise.precision == "float32":
        solution = _solution_in_float32(exercise)
        if solution is None:
            found.append(
                (
                    False,
                    "precision: float32, but the solution names no float64 "
                    "(dtype=torch.float64) to run in float32: write it in float64, so that "
                    "its float32 run can calibrate the checks",
                )
            )
        else:
            answers.append(("the solution in float32", solution))
    for what, submission in answers:
        found.append(_holds(what, submission, grade, seeds, exercise.points))
    return found


def _holds(
    what: str, submission: Submission, grade: Grader, seeds: Sequence[int], points: float
) -> Found:
    for seed in seeds:
        result, problems = grade(submission, seed)
        lost = [
            f"'{c.name}' ({c.status}: {c.problem})"
            for c in result.checks
            if c.status not in ("passed", "skipped")
        ]
        if result.score < result.max_score:
            return False, (
                f"{what} is a correct answer, but scores {fmt_points(result.score)}/"
                f"{fmt_points(result.max_score)} at seed {seed}: it loses {'; '.join(lost)} "
                f"{' '.join(problems)}".rstrip()
            )
        named = sorted(_named(result))
        if named:
            return (
                False,
                f"{what} is a correct answer, but is named {', '.join(named)} at seed {seed}",
            )
    return True, (
        f"{what} scores full marks ({fmt_points(points)}), unnamed, at every seed ({len(seeds)})"
    )


def _solution_in_float32(exercise: Exercise) -> Submission | None:
    """The solution with its float64 made float32, as a submission to grade."""
    if exercise.solution is None:
        return None
    source = in_float32(exercise.solution.read_text(encoding="utf-8"))
    if source is None:
        return None
    name = "solution (float32).py"
    return Submission(
        path=Path(exercise.solution.with_name(name)),
        name=name,
        kind="python",
        cells=(SourceCell(label=name, source=source),),
        sha256=hashlib.sha256(source.encode()).hexdigest(),
        declared_exercise=exercise.id,
        declared_assignment=None,
    )


def float32_calibrated(exercise: Exercise, seeds: Sequence[int]) -> list[Found]:
    """Where the exercise accepts float32: the widest slack float32 asks of each
    check, and a failure where it is so wide that float32 is ill-conditioned at
    the check's inputs (move them, and say why in the probe's about)."""
    if exercise.precision != "float32" or exercise.solution is None:
        return []
    widest: dict[str, tuple[float, str, int]] = {}
    for seed in seeds:
        for probe, value in zip(
            exercise.probes,
            expected_values(exercise, draw_inputs(exercise, seed), seed=seed),
            strict=True,
        ):
            if isinstance(value.observations, ErrorInfo):
                continue
            for label, slack in value.float32.items():
                if slack.rtol > widest.get(probe.name, (-1.0, "", 0))[0]:
                    widest[probe.name] = (slack.rtol, label, seed)
    ill = [
        (name, rtol, label, seed)
        for name, (rtol, label, seed) in widest.items()
        if rtol > ILL_CONDITIONED
    ]
    found: list[Found] = []
    for name, rtol, label, seed in ill:
        off = fmt(rtol / MARGIN, 2)
        found.append(
            (
                False,
                f"probe '{name}': float32 is off by up to {off} relative ({label}, seed "
                f"{seed}): float32 is ill-conditioned at its inputs; draw them away from "
                f"there, and say why in its about",
            )
        )
    if found:
        return found
    shown = ", ".join(f"'{name}' {fmt(rtol, 2)}" for name, (rtol, _, _) in widest.items())
    over = f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}"
    return [
        (
            True,
            f"float32 answers are accepted: each check also allows {MARGIN:g} times what the "
            f"solution in float32 gives at its inputs (the widest rtol per probe over {over}: "
            f"{shown or 'none'})",
        )
    ]


def _named(result: ExerciseResult) -> set[str]:
    """The mistakes a result names: in any check's diagnosis, or masked behind another."""
    named = {d.mistake for d in result.masked}
    for check in result.checks:
        for diagnosis in (check.diagnosis, check.public_diagnosis):
            if diagnosis is not None and diagnosis.kind != "unknown":
                named.add(diagnosis.mistake)
    return named
