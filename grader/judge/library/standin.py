"""The course's reference stands in for every op an exercise does not grade: a traced
result (the graph of ops that made a student's tensor, grader.run.child.graph) is
evaluated again here, node by node, with the reference's compute for each op the
exercise does not grade, and the student's own value for the ops it grades, for
leaves, and for ops the reference does not have (a student's own helper op).

So a MatMul gradient built with a broken Summation is judged on its formula: the
Summation node is computed by the reference. Nothing of the reference enters the
child: the child sends the graph, the grading process evaluates it. A check that
grades nothing (an integration check) keeps the student's own values throughout.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.core.values import Array, ErrorInfo, Number, Seq, Text, Traced, TracedNode, Value
from grader.judge.library.reference import (
    package_tops,
    reference_modules,
    reference_node,
    resolve,
)
from grader.run.child.reading import from_python
from grader.run.observed import GroupRun, ProbeRun

#: the elements an op's input or result may hold for the reference to compute
#: it here: a probe's tensors are small, and a graph the submission made up
#: (a (1024, 1) @ (1, 1024) product, a broadcast to a billion) is not run
MAX_STANDIN_ELEMENTS = 1024
#: the ops of one traced result the reference computes,
#: at most; the rest keep the submission's values
MAX_STANDIN_NODES = 256


@dataclass(frozen=True, slots=True)
class Standins:
    """The reference's ops by class name, and how one computes (grader.core.library.Graph)."""

    ops: Mapping[str, type]
    #: the op's method computing a value (needle's compute, minitorch's forward)
    compute: str = "compute"
    #: where given, the op is called on its class with
    #: a new one of these first (minitorch's Context)
    context: type | None = None


def reference_standins(exercise: Exercise) -> Standins:
    """Every op class of the reference package by its name, and
    how it computes: what stands in for an op no check grades."""
    library = exercise.library
    assert library is not None and library.graph is not None
    graph = library.graph
    modules = reference_modules(library, package_tops(exercise))
    node = reference_node(exercise)
    ops: dict[str, type] = {}
    for module in modules.values():
        for name, value in vars(module).items():
            if (
                isinstance(value, type)
                and callable(getattr(value, graph.compute, None))
                and value is not node
            ):
                ops.setdefault(name, value)
    context = resolve(modules, graph.context, library) if graph.context is not None else None
    if context is not None and not isinstance(context, type):
        raise GraderError(
            f"{library.reference}: the course's graph names {graph.context} as its context, which "
            f"is not a class (see docs/authoring.md)."
        )
    return Standins(ops, graph.compute, context)


def observed(exercise: Exercise, group: GroupRun) -> GroupRun:
    """`group` with every traced result of a library
    exercise evaluated (the identity for other exercises)."""
    if exercise.library is None or exercise.library.graph is None:
        return group
    if (
        exercise.solution is None
    ):  # a released pack: no reference to stand in, the student's values throughout
        return _own_values(exercise, group)
    standins = reference_standins(exercise)
    probes: list[ProbeRun | None] = []
    for spec, probe in zip(exercise.probes, group.probes, strict=True):
        if probe is None or probe.observations is None:
            probes.append(probe)
            continue
        graded = frozenset(dotted.rpartition(".")[2] for dotted in spec.grades or exercise.grades)
        if graded:
            found = {
                label: evaluate(value, standins, graded)
                for label, value in probe.observations.items()
            }
        else:
            found = {label: own_value(value) for label, value in probe.observations.items()}
        probes.append(dataclasses.replace(probe, observations=found))
    return dataclasses.replace(group, probes=tuple(probes))


def _own_values(exercise: Exercise, group: GroupRun) -> GroupRun:
    probes = [
        probe
        if probe is None or probe.observations is None
        else dataclasses.replace(
            probe,
            observations={label: own_value(value) for label, value in probe.observations.items()},
        )
        for probe in group.probes
    ]
    return dataclasses.replace(group, probes=tuple(probes))


def own_value(value: Value) -> Value:
    """A traced result's value as the student's own ops computed it (in lists and tuples too)."""
    if isinstance(value, Seq):
        return Seq(tuple(own_value(item) for item in value.items), value.kind)
    if isinstance(value, Traced):
        return value.nodes[-1].value
    return value


def evaluate(value: Value, standins: Standins, graded: frozenset[str]) -> Value:
    """A traced result's value, with the reference for
    every op not `graded` (in lists and tuples too)."""
    if isinstance(value, Seq):
        return Seq(tuple(evaluate(item, standins, graded) for item in value.items), value.kind)
    if not isinstance(value, Traced):
        return value
    results: list[Value] = []
    budget = MAX_STANDIN_NODES
    for node in value.nodes:
        inputs = [results[i] for i in node.inputs]
        if budget > 0 and node.op in standins.ops and node.op not in graded:
            budget -= 1
            results.append(reference_value(node, inputs, standins))
        else:
            results.append(node.value)
    return results[-1]


def reference_value(node: TracedNode, inputs: Sequence[Value], standins: Standins) -> Value:
    """What the reference's op computes from `inputs` (the node's own value
    where it cannot: an input that raised reaches every node built on it,
    and settings or sizes the reference cannot take keep the student's)."""
    reference = standins.ops.get(node.op) if node.op is not None else None
    if reference is None:
        return node.value
    failed = next((value for value in inputs if isinstance(value, ErrorInfo)), None)
    if failed is not None:
        return failed
    plain = [_plain_input(value) for value in inputs]
    if any(value is None for value in plain):
        return node.value
    try:
        return _compute(reference, node.settings, plain, standins)
    # settings the reference's op cannot take: the student's own value stands
    except Exception:  # noqa: BLE001
        return node.value


def _plain_input(value: Value) -> Any:
    """An input as the reference's op takes it (a float,
    an array), or None where it is neither or too big."""
    if isinstance(value, Number):
        return value.value
    if isinstance(value, Array) and len(value.data) <= MAX_STANDIN_ELEMENTS:
        import numpy

        return numpy.array(value.data, dtype=numpy.float64).reshape(value.shape)
    return None


def _compute(
    op_class: type, settings: tuple[tuple[str, Value], ...], inputs: list[Any], standins: Standins
) -> Value:
    if any(_oversized(value) for _, value in settings):
        raise ValueError("a shape of more elements than a stand-in computes")
    if standins.context is not None:
        found = getattr(op_class, standins.compute)(standins.context(), *inputs)
    else:
        op: Any = object.__new__(op_class)
        for key, value in settings:
            if _is_setting(op_class, key):
                vars(op)[key] = _plain(value)
        found = getattr(op, standins.compute)(*inputs)
    if getattr(found, "size", 1) > MAX_STANDIN_ELEMENTS:
        raise ValueError("more elements than a stand-in computes")
    result = from_python(found)
    if not isinstance(result, Array | Number):
        raise TypeError("the reference's op gave neither an array nor a number")
    return result


def _oversized(value: Value) -> bool:
    """A setting that is a shape (whole numbers) of more elements than a
    stand-in computes: refused before the reference's op could allocate it."""
    if not isinstance(value, Seq) or not value.items:
        return False
    sizes = [
        item.value for item in value.items if isinstance(item, Number) and item.value.is_integer()
    ]
    if len(sizes) != len(value.items):
        return False
    total = 1.0
    for size in sizes:
        total *= abs(size)
    return total > MAX_STANDIN_ELEMENTS


def _is_setting(op_class: type, key: str) -> bool:
    """Whether `key` may be set on the reference's op: an op's own setting
    (axes, shape), never a dunder, a private attribute or a name the class gives
    a method (a setting `compute` would put the student's value in its place)."""
    if not key.isidentifier() or key.startswith("_"):
        return False
    return not callable(getattr(op_class, key, None))


def _plain(value: Value) -> object:
    """A setting as Python: a whole number as an int (an axis, a shape), a sequence as a tuple."""
    if isinstance(value, Number):
        whole = value.value.is_integer()
        return int(value.value) if whole else value.value
    if isinstance(value, Seq):
        return tuple(_plain(item) for item in value.items)
    if isinstance(value, Text):
        return value.value
    return getattr(value, "value", None)
