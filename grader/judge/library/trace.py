"""Where a failed integration check of a library course went wrong: which op it is traced to.

An integration check runs the student's code alone (an SGD epoch, backward
over a graph), so one wrong op fails it. Its traced results say which ops
it used and what each computed. Two ways to name the op, in order:

- by value: walking a traced result from its leaves, the first node
  whose op, computed by the course's reference from the very inputs the
  student's code gave it, disagrees with what the student's op computed;
- by the op's own checks: the ops the check used (in its traced results, and the
  objects its exercise names) whose own checks, elsewhere in the same report, failed.

Only public checks are traced: a trace tells what a check's inputs led through.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from grader.core.compare import compare
from grader.core.exercise import Exercise
from grader.core.library import last_name
from grader.core.numeric import Tolerance
from grader.core.values import ErrorInfo, Seq, Traced, Value
from grader.judge.library.standin import Standins, reference_value
from grader.judge.report import CheckResult, ExerciseResult, Trace
from grader.run.observed import GroupRun

_FAILED = ("failed", "error")


def traced(
    exercises: Sequence[Exercise],
    groups: Sequence[GroupRun | None],
    results: Sequence[ExerciseResult],
) -> list[ExerciseResult]:
    """`results` with each failed public integration check of a library
    course traced to an op, where one is found. `groups`: each exercise's
    part of the run, as the child sent it (before any stand-in)."""
    if not any(exercise.library is not None for exercise in exercises):
        return list(results)
    owners = _own_checks(exercises, results)
    out = []
    for exercise, group, result in zip(exercises, groups, results, strict=True):
        failed = any(c.status in _FAILED for c in result.checks)
        if (
            exercise.library is None
            or group is None
            or not failed
            or not _one_per_probe(exercise, result)
        ):
            out.append(result)
            continue
        checks = []
        for probe, run, check in zip(exercise.probes, group.probes, result.checks, strict=True):
            integration = not (probe.grades or exercise.grades)
            if check.status in _FAILED and check.visibility == "public" and integration:
                values = (
                    ()
                    if run is None or run.observations is None
                    else tuple(run.observations.values())
                )
                trace = trace_check(exercise, probe.tolerance, values, owners)
                check = check if trace is None else dataclasses.replace(check, traced=trace)
            checks.append(check)
        out.append(dataclasses.replace(result, checks=tuple(checks)))
    return out


def trace_check(
    exercise: Exercise, tolerance: Tolerance, values: Sequence[Value], owners: dict[str, list[str]]
) -> Trace | None:
    """The op one failed check is traced to: by value first, else by the op's own failed checks."""
    graphs: list[Traced] = []
    for value in values:
        graphs += _graphs(value)
    # a released pack has no reference: its trace is by own checks alone
    reference = exercise.solution is not None
    if reference and exercise.library is not None and exercise.library.graph is not None and graphs:
        from grader.judge.library.standin import reference_standins

        standins = reference_standins(exercise)
        for graph in graphs:
            op = first_wrong(graph, standins, tolerance)
            if op is not None:
                return Trace(ops=(op,), how="value", checks=tuple(owners.get(op, ())))
    used: list[str] = []
    for graph in graphs:
        used += [node.op for node in graph.nodes if node.op is not None]
    used += [last_name(dotted) for dotted, _ in exercise.defines]
    failing = [op for op in dict.fromkeys(used) if owners.get(op)]
    if not failing:
        return None
    checks: list[str] = []
    for op in failing:
        checks += owners[op]
    return Trace(ops=tuple(failing), how="own-check", checks=tuple(checks))


def first_wrong(graph: Traced, standins: Standins, tolerance: Tolerance) -> str | None:
    """The op of the first node whose value the reference computes otherwise
    from the same inputs (or that raised where its inputs did not), or None."""
    for node in graph.nodes:
        if node.op is None or node.op not in standins.ops:
            continue
        inputs = [graph.nodes[i].value for i in node.inputs]
        if any(isinstance(value, ErrorInfo) for value in inputs):
            return None  # an earlier node raised: that one is not the reference's op
        if isinstance(node.value, ErrorInfo):
            return node.op
        want = reference_value(node, inputs, standins)
        if want is not node.value and compare(want, node.value, tolerance) is not None:
            return node.op
    return None


def _graphs(value: Value) -> list[Traced]:
    if isinstance(value, Traced):
        return [value]
    found: list[Traced] = []
    if isinstance(value, Seq):
        for item in value.items:
            found += _graphs(item)
    return found


def _own_checks(
    exercises: Sequence[Exercise], results: Sequence[ExerciseResult]
) -> dict[str, list[str]]:
    """For each op or object a check grades (by its dotted path and by its
    last part), the failed checks that grade it, as "exercise: check"."""
    owners: dict[str, list[str]] = {}
    for exercise, result in zip(exercises, results, strict=True):
        if exercise.library is None or not _one_per_probe(exercise, result):
            continue
        for probe, check in zip(exercise.probes, result.checks, strict=True):
            if check.status not in _FAILED:
                continue
            for dotted in probe.grades or exercise.grades:
                for key in dict.fromkeys((dotted, last_name(dotted))):
                    owners.setdefault(key, []).append(_named(exercise, check))
    return owners


def _one_per_probe(exercise: Exercise, result: ExerciseResult) -> bool:
    """Whether the result has a check per probe, in order
    (an exercise whose names are missing has fewer)."""
    return len(result.checks) == len(exercise.probes) and all(
        check.name == probe.name
        for probe, check in zip(exercise.probes, result.checks, strict=True)
    )


def _named(exercise: Exercise, check: CheckResult) -> str:
    return f"{exercise.id}: {check.name}"
