"""The trusted scalar engines an exercise's probes run on:
a base engine, the course's ops, the contract's names."""

from __future__ import annotations

from typing import Any

from grader.core.contract import adapt
from grader.core.exercise import Exercise
from grader.judge.course_ops import load_ops, with_ops
from reference.scalar import Node


def engine(exercise: Exercise, base: type[Any] = Node) -> type[Any]:
    """`base` (the reference `Node`, its torch twin, a
    slipped or recording engine) as `exercise` sees it."""
    return adapt(with_ops(base, load_ops(exercise.course_ops)), exercise.contract)


def names(exercise: Exercise, base: type[Any] = Node) -> dict[str, object]:
    """What a probe's code sees for the engine: the
    contract's class name, bound to `engine(...)`."""
    return {exercise.contract.class_name: engine(exercise, base)}
