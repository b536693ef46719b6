"""What a child is asked to run, per probe and per library: the plain data of the request (grader.run.sandbox)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from grader.core.exercise import Exercise
from grader.run.inputs import input_to_data, probe_seed

if TYPE_CHECKING:
    from grader.run.sandbox import Group


@functools.cache
def _uses_of(code: str, names: tuple[str, ...]) -> tuple[str, ...]:
    used = {node.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name)}
    return tuple(n for n in names if n in used)


def uses(exercise: Exercise, index: int) -> tuple[str, ...]:
    probe = exercise.probes[index]
    code = probe.code + "\n" + "\n".join(expr for _, expr in probe.observe)
    used = _uses_of(code, tuple(name for name, _ in exercise.names))
    # a library's names are asked for by dotted path (needle.ops.EWiseMul) and known to the probe by the last part
    return tuple(dotted for dotted, _ in exercise.defines if dotted.rpartition(".")[2] in used)


def import_paths(exercises: Sequence[Exercise]) -> list[str]:
    """The folders of a library's repository put on sys.path (one course's: its exercises share them)."""
    paths: dict[str, None] = {}
    for exercise in exercises:
        if exercise.library is not None:
            paths.update(dict.fromkeys(exercise.library.import_paths))
    return list(paths)


def graph_request(exercise: Exercise) -> dict[str, object] | None:
    """How the child reads a library exercise's tensors (grader.run.child.graph), or None."""
    graph = exercise.library.graph if exercise.library is not None else None
    if graph is None:
        return None
    return {"node": graph.node, "op": graph.op, "inputs": graph.inputs, "realize": graph.realize,
            "lazy": graph.lazy}


def probe_request(group: Group, index: int) -> dict[str, object]:
    probe = group.exercise.probes[index]
    return {"name": probe.name, "code": probe.code, "observe": list(probe.observe),
            "inputs": {name: input_to_data(value) for name, value in group.inputs[index].items()},
            "torch_seed": probe_seed(group.seed, group.exercise.id, probe.name), "uses": uses(group.exercise, index)}
