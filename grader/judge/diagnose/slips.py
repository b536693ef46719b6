"""Sign slips: the reference engine with one local
slope's sign flipped, to name slips no mutant covers.

A sign slip in one operation's rule for one operand (`k - x` giving x a slope of +1, the
quotient's denominator losing its minus) rarely shows as a ratio of the right answer: in `(k
- x) * (x - m)` the gradient is neither negated nor halved. Running the exercise's probes on
each slipped engine, here in the trusted process (the reference engine is our code, not the
student's), gives values a student with that slip produces exactly; the sign-slips pass
(grader.judge.diagnose.sign_slips) names a slip only where every value of a failed check
matches one. Engine exercises (`engine: scalar`) only: torch's rules are not the student's.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from grader.core.exercise import Exercise
from grader.core.values import ErrorInfo
from grader.judge import scalar_engine
from grader.run.child.execute import compile_probe, namespace, run_probe
from grader.run.inputs import Inputs, probe_seed
from grader.run.observed import GroupRun, ProbeRun
from reference.scalar import Node


@dataclass(frozen=True, slots=True)
class Slope:
    """One operation's local slope with respect to one operand, in the words a student reads."""

    method: str
    #: 0: the node the method is called on; 1: the other operand, when it is a node
    operand: int
    expression: str
    variable: str
    formula: str

    @property
    def hint(self) -> str:
        return (
            f"The local slope of {self.expression} ({self.method}) with respect to {self.variable} "
            f"has the wrong sign: d({self.expression})/d{self.variable} is {self.formula}."
        )


SLOPES = (
    Slope("__add__", 0, "x + y", "x", "1"),
    Slope("__add__", 1, "x + y", "y", "1"),
    Slope("__radd__", 0, "k + x", "x", "1"),
    Slope("__sub__", 0, "x - y", "x", "1"),
    Slope("__sub__", 1, "x - y", "y", "-1"),
    Slope("__rsub__", 0, "k - x", "x", "-1"),
    Slope("__mul__", 0, "x * y", "x", "y"),
    Slope("__mul__", 1, "x * y", "y", "x"),
    Slope("__rmul__", 0, "k * x", "x", "k"),
    Slope("__truediv__", 0, "x / y", "x", "1 / y"),
    Slope("__truediv__", 1, "x / y", "y", "-x / y**2"),
    Slope("__rtruediv__", 0, "k / x", "x", "-k / x**2"),
    Slope("__pow__", 0, "x ** n", "x", "n * x**(n - 1)"),
    Slope("__neg__", 0, "-x", "x", "-1"),
    Slope("sigmoid", 0, "sigmoid(x)", "x", "s * (1 - s), with s = sigmoid(x)"),
    Slope("relu", 0, "relu(x)", "x", "1 where x > 0, else 0"),
    Slope("tanh", 0, "tanh(x)", "x", "1 - tanh(x)**2"),
    Slope("exp", 0, "exp(x)", "x", "exp(x)"),
    Slope("log", 0, "log(x)", "x", "1 / x"),
)


#: reverse operations (k - x) that an engine may build from the forward one (k lifted, then k - x):
#: a slip in the forward rule's right operand then shows in both
REVERSE = {
    "__radd__": "__add__",
    "__rsub__": "__sub__",
    "__rmul__": "__mul__",
    "__rtruediv__": "__truediv__",
}


@dataclass(frozen=True, slots=True)
class SlipRun:
    """What the probes gave on the engine with `slope` negated."""

    slope: Slope
    #: the engine builds the reverse of `slope.method` from it, so the slip shows there too
    shared: bool
    run: GroupRun

    @property
    def evidence(self) -> str:
        where = f"d({self.slope.expression})/d{self.slope.variable} ({self.slope.method})"
        if self.shared:
            reverse = next(r for r, forward in REVERSE.items() if forward == self.slope.method)
            where += f", which {reverse} is built from,"
        return where


def slip_runs(exercise: Exercise, inputs: tuple[Inputs, ...], seed: int) -> tuple[SlipRun, ...]:
    """Every probe of `exercise` on every slipped engine, with the student's inputs and seed."""
    if not exercise.kind.operations:
        return ()
    asked = to_write(exercise.starter)
    compiled = [
        compile_probe(probe.name, probe.code, dict(probe.observe)) for probe in exercise.probes
    ]
    seeds = [probe_seed(seed, exercise.id, probe.name) for probe in exercise.probes]
    runs = []
    engines = [(slope, False) for slope in SLOPES if slope.method in asked]
    engines += [
        (slope, True)
        for slope in SLOPES
        if slope.method in asked
        and slope.operand == 1
        and any(
            forward == slope.method and reverse in asked for reverse, forward in REVERSE.items()
        )
    ]
    for slope, shared in engines:
        names = scalar_engine.names(exercise, slipped(slope, shared))
        probes = []
        for code, probe_inputs, probe_seed_ in zip(compiled, inputs, seeds, strict=True):
            got = run_probe(code, namespace("none", names, probe_inputs, "cpu", probe_seed_))
            probes.append(
                ProbeRun(observations=None, error=got)
                if isinstance(got, ErrorInfo)
                else ProbeRun(observations=got, error=None)
            )
        runs.append(
            SlipRun(slope, shared, GroupRun(missing=(), probes=tuple(probes), stopped_at=None))
        )
    return tuple(runs)


def to_write(starter: Path) -> frozenset[str]:
    """The methods the student writes: in the exercise's
    starter, those that raise NotImplementedError.

    A slip is only ever blamed on one of these: the others came with the starter, right.
    """
    try:
        tree = ast.parse(starter.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    return frozenset(
        function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        and any(
            isinstance(node, ast.Raise) and _names_not_implemented(node.exc)
            for node in ast.walk(function)
        )
    )


def _names_not_implemented(exc: ast.expr | None) -> bool:
    target = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(target, ast.Name) and target.id == "NotImplementedError"


#: the operations a slipped engine defines, each as one node with its own slopes
METHODS = tuple(dict.fromkeys(slope.method for slope in SLOPES))


@cache
def slipped(slope: Slope, shared: bool = False) -> type[Node]:
    """The reference `Node` with `slope` negated and every other rule right.

    Each operation makes one node with its own slopes, as a student's engine does:
    in the reference, `-x` is `x * -1.0`, and a slip in `*` would otherwise show in
    `-` and `/` as well. With `shared`, the reverse of `slope.method` is the
    reference's own (k lifted, then the forward rule), so the slip shows in it too.
    """
    methods = {
        name: _atomic(name, slope.operand if name == slope.method else None)
        for name in METHODS
        if not (shared and REVERSE.get(name) == slope.method)
    }
    name = f"Node_{slope.method.strip('_')}_{slope.operand}{'_shared' if shared else ''}"
    return type(name, (Node,), {"__slots__": (), **methods})


def _atomic(name: str, flip: int | None) -> Callable[..., Node]:
    rule: Callable[..., Node] = getattr(Node, name)

    def method(self: Node, *args: Any) -> Node:
        operands = [self, *(a for a in args if isinstance(a, Node))]
        # The value (and any error) and the local slopes, from the reference on fresh leaves.
        leaves = [Node(o.value) for o in operands]
        fresh = iter(leaves[1:])
        out = rule(leaves[0], *(next(fresh) if isinstance(a, Node) else a for a in args))
        out.backward()
        slopes = [leaf.grad for leaf in leaves]
        if flip is not None and flip < len(
            slopes
        ):  # a plain-number operand has no slope to get wrong
            slopes[flip] = -slopes[flip]
        return type(self)(out.value, tuple(operands), tuple(slopes))

    return method
