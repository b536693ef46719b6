"""What an exercise knows of its own mistakes: its folder's `diagnosis.py`.

Mutants name the mistakes a course foresaw for one exercise; some of its mistakes are better named
by code written for that exercise alone (the chain of manual backprop, batch norm's three paths).
That code lives in the exercise's folder, beside its mutants, not in the engine. The file is the
course's trusted code, like a torch exercise's solution or a course's reference_ops.py, and is
loaded here in the grading process only (never in a child). It may define:

    PASSES = (mark_chain,)      # passes run in order by the exercise pass (passes.py), each
                                # (evidence, result) -> result
    def variants(names): ...    # the tensor reference with one rule changed, for this exercise
                                # (grader.judge.tensor.tensor_variants.Variant), over `names`,
                                # what a probe sees of the reference

A file that does not load, or defines something else under these names, is a `GraderError` naming
it (`grade validate` reads every exercise's).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.judge.diagnose.evidence import Evidence
from grader.judge.report import ExerciseResult

#: a pass an exercise declares: what it does to the result, on the evidence
Run = Callable[[Evidence, ExerciseResult], ExerciseResult]


@dataclass(frozen=True, slots=True)
class ExerciseCode:
    """What an exercise's diagnosis.py declares."""

    passes: tuple[Run, ...] = ()
    #: names -> the variants of the reference for this exercise
    variants: Callable[[dict[str, object]], Sequence[object]] | None = None


NONE = ExerciseCode()


def exercise_code(exercise: Exercise) -> ExerciseCode:
    """The exercise's declarations; none where it has no diagnosis.py."""
    path = exercise.diagnosis
    if path is None:
        return NONE
    return _load(path, path.read_text(encoding="utf-8"))


@cache
def _load(path: Path, source: str) -> ExerciseCode:
    module = types.ModuleType(f"diagnosis_{path.parent.name.replace('-', '_')}")
    module.__file__ = str(path)
    try:
        exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    except Exception as exc:  # noqa: BLE001 - the course's file: say what broke, in its words
        raise GraderError(f"{path}: cannot be loaded: {type(exc).__name__}: {exc}.") from None
    passes = getattr(module, "PASSES", ())
    variants = getattr(module, "variants", None)
    if not isinstance(passes, tuple) or not all(callable(p) for p in passes):
        raise GraderError(
            f"{path}: PASSES must be a tuple of functions (evidence, result) -> result, in the "
            "order they run (see docs/authoring.md)."
        )
    if variants is not None and not callable(variants):
        raise GraderError(f"{path}: variants must be a function of the reference's names.")
    return ExerciseCode(passes, variants)
