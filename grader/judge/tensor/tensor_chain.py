"""Which wrong gradient of a backward chain is the root (manual backprop, issue 17), and which follow from it.

In the backprop-ninja exercise each intermediate's gradient is a check of its own, and each is
worked out from the gradients of the tensors it feeds. So for each wrong one, the reference's chain
rule is applied to the student's *own* values of those gradients, on the same inputs:

- if that gives the student's value, this line of the student's backward is right, and the gradient
  is wrong only because one it is made from is: it follows from an earlier root;
- if not, its own line is wrong: a root. The first wrong gradient in backward order is always one
  (everything it is made from is right). Where a root is the right value less the contribution
  through one of the tensors it feeds, that missing path is named.

Applies to exercises that define `manual_backward` and observe `d<name>` for the intermediates of
reference.tensor_tasks (inputs named as its parameters); elsewhere the checks pass through unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from grader.core.exercise import Exercise
from grader.core.values import Array
from grader.judge.oracle import Expected
from grader.judge.report import CheckResult, Diagnosis
from grader.run.inputs import Inputs, TensorInput
from grader.run.observed import GroupRun
from reference.tensor import Tensor, topological_order
from reference.tensor_tasks import BACKWARD_ORDER, PARAMETERS, ninja_graph

_LOSS = "loss"


def mark(exercise: Exercise, checks: list[CheckResult], located: Mapping[int, tuple[int, GroupRun]],
         failing: set[int], expected: tuple[Expected, ...], inputs: tuple[Inputs, ...]) -> list[CheckResult]:
    """The checks, each wrong gradient of the chain marked as a root or as following from one."""
    chain = _chain(exercise)
    if not chain or not located or any(name not in inputs[0] for name in (*PARAMETERS, "Xb", "Yb")):
        return checks
    run = next(iter(located.values()))[1]
    by_name = {exercise.probes[index].name: index for index in chain}
    check_of = {chain[by_name[c.name]]: i for i, c in enumerate(checks) if c.name in by_name}
    values = {name: np.array(value.data).reshape(value.shape) for name, value in
              ((chain[i], _observed(run, i, f"d{chain[i]}")) for i in chain) if value is not None}
    named, loss = ninja_graph(Tensor, {k: _numpy(inputs[0][k]) for k in (*PARAMETERS, "Xb", "Yb")})
    feeds = _consumers(named, loss)
    wrong = {chain[located[i][0]] for i in failing if i in located and checks[i].status == "failed"
             and located[i][0] in chain}
    blame: dict[str, set[str]] = {}
    checks = list(checks)
    for name in (n for n in BACKWARD_ORDER if n in wrong and n in values and n in check_of):
        if values[name].shape != named[name].shape or any(c != _LOSS and c not in values for c in feeds[name]):
            continue  # what it is made from was not observed: nothing to say
        parts = {c: _through(named, loss, name, c, values.get(c)) for c in feeds[name]}
        local = sum(parts.values(), np.zeros(named[name].shape))
        tol = exercise.probes[by_name_of(chain, name)].tolerance
        index = check_of[name]
        if _close(values[name], local, tol.rtol, tol.atol):
            blame[name] = set().union(*(blame.get(c, set()) for c in feeds[name] if c in wrong)) or {"?"}
            roots = ", ".join(f"d{r}" for r in sorted(blame[name] - {"?"})) or "an earlier gradient"
            made_from = ", ".join(f"d{c}" for c in sorted(feeds[name] - {_LOSS}))
            checks[index] = dataclasses.replace(checks[index], diagnosis=Diagnosis(
                kind="pattern", mistake="follows-from-earlier",
                hint=f"This line is right for the {made_from} your code gives it: d{name} is wrong only because "
                     f"{roots} is. Fix {roots} first.",
                evidence=f"the chain rule applied to your own {made_from} gives your d{name}"))
            continue
        blame[name] = {name}
        first = not any(n in wrong for n in BACKWARD_ORDER[:BACKWARD_ORDER.index(name)])
        checks[index] = dataclasses.replace(checks[index], diagnosis=_root(
            checks[index].diagnosis, name, feeds[name], parts, local, values[name], first, tol.rtol, tol.atol))
    return checks


def by_name_of(chain: Mapping[int, str], name: str) -> int:
    return next(i for i, n in chain.items() if n == name)


def _root(found: Diagnosis | None, name: str, feeds: set[str], parts: Mapping[str, np.ndarray], local: np.ndarray,
          value: np.ndarray, first: bool, rtol: float, atol: float) -> Diagnosis:
    made_from = ", ".join(f"d{c}" for c in sorted(feeds - {_LOSS})) or "the loss"
    where = "the first wrong gradient in backward order" if first else "wrong on its own, too"
    evidence = f"d{name} is {where}: the chain rule applied to your {made_from} does not give your d{name}"
    missing = [c for c, part in parts.items() if len(parts) > 1 and np.abs(part).max() > 1e-9
               and _close(value, local - part, rtol, atol)]
    said = f"The root: d{name} is the first wrong gradient in backward order, and its own line is wrong." if first \
        else f"A root of its own: d{name}'s own line is wrong too."
    if found is not None and found.kind == "known-mistake":
        return dataclasses.replace(found, hint=f"{said} {found.hint}",
                                   evidence=f"{found.evidence}; {evidence}")
    if len(missing) == 1:
        via = missing[0]
        return Diagnosis(kind="pattern", mistake="missing-path",
                         hint=f"{said} It misses the path through {via}: {name} feeds "
                              f"{' and '.join(sorted(feeds - {_LOSS}))}, and its gradient is the sum over all of them.",
                         evidence=f"{evidence}; it is the right value less the contribution through {via}")
    return Diagnosis(kind="pattern", mistake="root-gradient",
                     hint=f"{said} The chain rule applied to the gradients it is made from ({made_from}), as your code "
                          "gives them, gives another value. Later wrong gradients marked follows-from-earlier are "
                          "wrong only because of it.",
                     evidence=evidence)


def _chain(exercise: Exercise) -> dict[int, str]:
    """Probe index -> intermediate, for probes that observe exactly one `d<name>` of the chain."""
    if ("manual_backward", "function") not in exercise.defines:
        return {}
    chain = {}
    for index, probe in enumerate(exercise.probes):
        labels = [label for label, _ in probe.observe]
        if len(labels) == 1 and labels[0].startswith("d") and labels[0][1:] in BACKWARD_ORDER:
            chain[index] = labels[0][1:]
    return chain


def _observed(run: GroupRun, index: int, label: str) -> Array | None:
    got = run.probes[index]
    value = None if got is None or got.observations is None else got.observations.get(label)
    return value if isinstance(value, Array) else None


def _numpy(value: object) -> np.ndarray:
    if isinstance(value, TensorInput):
        return np.array(value.data, dtype=value.dtype).reshape(value.shape)
    return np.array(value)


def _consumers(named: Mapping[str, Tensor], loss: Tensor) -> dict[str, set[str]]:
    """For each named tensor, the named tensors (or the loss) whose gradient reaches it without another name."""
    name_of = {id(t): n for n, t in named.items()}
    feeds: dict[str, set[str]] = {n: set() for n in named}
    for source, start in [(_LOSS, loss), *named.items()]:
        stack, seen = list(start.parents), set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if id(node) in name_of:
                feeds[name_of[id(node)]].add(source)
            else:
                stack.extend(node.parents)
    return feeds


def _through(named: Mapping[str, Tensor], loss: Tensor, target: str, source: str,
             gradient: np.ndarray | None) -> np.ndarray:
    """The part of `target`'s gradient that comes through `source`, given `source`'s gradient (the loss: 1)."""
    start = loss if source == _LOSS else named[source]
    seed = np.ones(()) if source == _LOSS or gradient is None else gradient
    stop = {id(t) for n, t in named.items() if n != source}
    pending: dict[int, np.ndarray] = {id(start): seed}
    for node in reversed(topological_order(start)):
        g = pending.pop(id(node), None)
        if node is named[target]:
            return g if g is not None else np.zeros(named[target].shape)
        if g is None or node._backward is None or (id(node) in stop and node is not start):
            continue
        for parent, part in zip(node.parents, node._backward(g), strict=True):
            pending[id(parent)] = part if id(parent) not in pending else pending[id(parent)] + part
    return np.zeros(named[target].shape)


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    return bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)))
