"""The course's reference stands in for every op an exercise does not grade: a traced result (the graph of ops
that made a student's tensor, grader.run.child.graph) is evaluated again here, node by node, with the
reference's compute for each op the exercise does not grade, and the student's own value for the ops it
grades, for leaves, and for ops the reference does not have (a student's own helper op).

So a MatMul gradient built with a broken Summation is judged on its formula: the Summation node is computed by
the reference. Nothing of the reference enters the child: the child sends the graph, the grading process
evaluates it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from grader.core.exercise import Exercise
from grader.core.values import Array, ErrorInfo, Number, Seq, Text, Traced, TracedNode, Value
from grader.run.child.reading import from_python
from grader.run.observed import GroupRun, ProbeRun

#: the elements an op's input or result may hold for the reference to compute it here: a probe's tensors are small,
#: and a graph the submission made up (a (1024, 1) @ (1, 1024) product, a broadcast to a billion) is not run
MAX_STANDIN_ELEMENTS = 1024
#: the ops of one traced result the reference computes, at most; the rest keep the submission's values
MAX_STANDIN_NODES = 256


def observed(exercise: Exercise, group: GroupRun) -> GroupRun:
    """`group` with every traced result of a library exercise evaluated (the identity for other exercises)."""
    if exercise.library is None or exercise.library.graph is None:
        return group
    ops = _ops(exercise)
    probes: list[ProbeRun | None] = []
    for spec, probe in zip(exercise.probes, group.probes, strict=True):
        if probe is None or probe.observations is None:
            probes.append(probe)
            continue
        graded = frozenset(dotted.rpartition(".")[2] for dotted in spec.grades or exercise.grades)
        found = {label: evaluate(value, ops, graded) for label, value in probe.observations.items()}
        probes.append(dataclasses.replace(probe, observations=found))
    return dataclasses.replace(group, probes=tuple(probes))


def _ops(exercise: Exercise) -> Mapping[str, type]:
    from grader.judge.library.reference import reference_ops

    return reference_ops(exercise)


def evaluate(value: Value, ops: Mapping[str, type], graded: frozenset[str]) -> Value:
    """A traced result's value, with the reference for every op not `graded` (in lists and tuples too)."""
    if isinstance(value, Seq):
        return Seq(tuple(evaluate(item, ops, graded) for item in value.items), value.kind)
    if not isinstance(value, Traced):
        return value
    results: list[Value] = []
    budget = MAX_STANDIN_NODES
    for node in value.nodes:
        inputs = [results[i] for i in node.inputs]
        if budget > 0 and node.op in ops:
            budget -= 1
            results.append(_node(node, inputs, ops, graded))
        else:
            results.append(node.value)
    return results[-1]


def _node(node: TracedNode, inputs: Sequence[Value], ops: Mapping[str, type], graded: frozenset[str]) -> Value:
    reference = ops.get(node.op) if node.op is not None and node.op not in graded else None
    if reference is None:
        return node.value
    failed = next((value for value in inputs if isinstance(value, ErrorInfo)), None)
    if failed is not None:
        return failed  # what an input of the student's own raised reaches every node built on it
    arrays = [value for value in inputs if isinstance(value, Array)]
    if len(arrays) != len(inputs) or any(len(a.data) > MAX_STANDIN_ELEMENTS for a in arrays):
        return node.value
    try:
        return _compute(reference, node.settings, [_array(a) for a in arrays])
    except Exception:  # noqa: BLE001 - settings the reference's op cannot take: the student's own value stands
        return node.value


def _compute(op_class: type, settings: tuple[tuple[str, Value], ...], inputs: list[Any]) -> Value:
    op: Any = object.__new__(op_class)
    for key, value in settings:
        if key.isidentifier() and not key.startswith("_"):  # an op's own setting, never a dunder or a private
            vars(op)[key] = _plain(value)
    found = op.compute(*inputs)
    if getattr(found, "size", MAX_STANDIN_ELEMENTS + 1) > MAX_STANDIN_ELEMENTS:
        raise ValueError("more elements than a stand-in computes")
    result = from_python(found)
    if not isinstance(result, Array):
        raise TypeError("the reference's op did not give an array")
    return result


def _array(value: Array) -> Any:
    import numpy

    return numpy.array(value.data, dtype=numpy.float64).reshape(value.shape)


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
