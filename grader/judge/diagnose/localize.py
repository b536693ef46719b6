"""Fault localization for whole engines: each operation
alone, then small compositions, run in the sandbox.

When an engine exercise fails, the student's class is run on a synthetic set of probes
that scores nothing (launched like the mutants: student code runs only in the sandbox):
each operation alone, under an upstream factor, with a plain number on either side,
with its operand repeated; then small compositions of + and * (a chain, a diamond, a
node shared by a short and a long path, backward twice on one graph, a rebuilt graph, a
new graph over an old intermediate). The same probes run on the reference engine here,
in the trusted process, for the expected values. grader.judge.diagnose.faults reads the
two side by side and tells a wrong local rule from a wrong traversal.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass
from functools import cache

from grader.core.contract import DEFAULT, Contract, rename
from grader.core.exercise import Exercise, Probe
from grader.core.numeric import DEFAULT_TOLERANCE
from grader.core.values import ErrorInfo
from grader.run.child.execute import compile_probe, namespace, run_probe
from grader.run.inputs import Inputs, show_input
from grader.run.observed import GroupRun, ProbeRun, RunResult
from grader.run.read.load import Submission
from grader.run.sandbox import Group, Sandbox
from reference.scalar import Node

#: binary operators: method, symbol, and the reflected method a plain number on the left calls
BINARY = (
    ("__add__", "+", "__radd__"),
    ("__sub__", "-", "__rsub__"),
    ("__mul__", "*", "__rmul__"),
    ("__truediv__", "/", "__rtruediv__"),
)
#: unary operations: method, the expression that calls it
#: on x, the input it needs ("any", "positive", "negative")
UNARY = (
    ("__neg__", "-x", "any"),
    ("__pow__", "x ** n", "any"),
    ("sigmoid", "x.sigmoid()", "any"),
    ("relu", "x.relu()", "positive"),
    ("relu", "x.relu()", "negative"),
    ("tanh", "x.tanh()", "any"),
    ("exp", "x.exp()", "any"),
    ("log", "x.log()", "positive"),
)
EXPONENT = 3
#: the stops that spent a run's time: the wall clock, or the CPU time
OUT_OF_TIME = frozenset({"timeout", "cpu"})
#: what a method may be built from, in the lessons'
#: and micrograd's engines: its faults may be theirs
BUILT_FROM: dict[str, frozenset[str]] = {
    "__radd__": frozenset({"__add__"}),
    "__rmul__": frozenset({"__mul__"}),
    "__neg__": frozenset({"__mul__", "__rmul__"}),
    "__sub__": frozenset({"__add__", "__radd__", "__neg__", "__mul__", "__rmul__"}),
    "__rsub__": frozenset({"__sub__", "__add__", "__radd__", "__neg__", "__mul__", "__rmul__"}),
    "__truediv__": frozenset({"__mul__", "__rmul__", "__pow__", "__rtruediv__"}),
    "__rtruediv__": frozenset({"__truediv__", "__mul__", "__rmul__", "__pow__"}),
    "sigmoid": frozenset(
        {
            "exp",
            "__add__",
            "__radd__",
            "__neg__",
            "__mul__",
            "__rmul__",
            "__truediv__",
            "__rtruediv__",
            "__pow__",
        }
    ),
    "tanh": frozenset(
        {
            "exp",
            "__add__",
            "__radd__",
            "__sub__",
            "__rsub__",
            "__neg__",
            "__mul__",
            "__rmul__",
            "__truediv__",
            "__rtruediv__",
            "__pow__",
        }
    ),
}
_SIGNED = {"any": "a", "positive": "abs(a)", "negative": "-abs(a)"}
XY = (("x", "a"), ("y", "b"))
_SYMBOL = {method: symbol for method, symbol, _ in BINARY}


@dataclass(frozen=True, slots=True)
class Spec:
    """One localization probe: what it tests, its code, and what it observes."""

    #: "__mul__:alone", "__mul__:upstream", "__radd__:number",
    #: "sigmoid:repeat", "traversal:diamond"...
    name: str
    method: str
    code: str
    observe: tuple[tuple[str, str], ...]
    #: the nodes and numbers it starts from, for the evidence: (name, expression of the inputs)
    start: tuple[tuple[str, str], ...] = ()


@cache
def specs() -> tuple[Spec, ...]:
    """Every localization probe, operations first (a
    probe that loops stops only the ones after it)."""
    found: list[Spec] = [Spec("fresh", "backward", "x = Node(a)", (("x.grad", "x.grad"),))]
    for method, symbol, reflected in BINARY:
        found += _binary_specs(method, symbol, reflected)
    for method, expression, domain in UNARY:
        found += _unary_specs(method, expression, domain)
    for i, (method, left, right) in enumerate(_MET):
        code = f"x, y = Node({left}), Node({right})\nout = x {_SYMBOL[method]} y\nout.backward()"
        pair = (("value", "out.value"), ("x.grad", "x.grad"), ("y.grad", "y.grad"))
        found.append(Spec(f"{method}:met:{i}", method, code, pair, (("x", left), ("y", right))))
    starts = (("a", "a"), ("b", "b"), ("c", "c"), ("k", "k"))
    for name, code, labels in _WALKS:
        observed = tuple((label, label) for label in labels)
        found.append(Spec(f"traversal:{name}", "backward", code, observed, starts))
    # each again with the output seeded by the probe itself (out.grad = 1.0 before
    # out.backward()): a missing seed zeroes every gradient and hides what else is
    # wrong; seeded here, the rules behind it show (grader.judge.diagnose.faults)
    found += [
        dataclasses.replace(spec, name=f"{SEEDED}{spec.name}", code=_seeded(spec.code))
        for spec in found
        if spec.name != "fresh"
    ]
    # and each operation by its own backward step alone (micrograd's
    # out._backward()), the walk left out: a walk that never runs (a backward()
    # shadowed by an instance attribute) or misorders hides the operations' rules
    found += [
        dataclasses.replace(spec, name=f"{STEP}{spec.name}", code=_stepped(spec.code))
        for spec in found
        if spec.name.removeprefix(f"{spec.method}:") in _STEPPED_KINDS.get(spec.method, ())
    ]
    return tuple(found)


def _binary_specs(method: str, symbol: str, reflected: str) -> list[Spec]:
    """x op y alone, under an upstream factor, with its operand repeated, and with a plain
    number on either side."""
    pair = (
        ("value", "out.value"),
        ("out.grad", "out.grad"),
        ("x.grad", "x.grad"),
        ("y.grad", "y.grad"),
    )
    grads = (("x.grad", "x.grad"), ("y.grad", "y.grad"))
    one = (("value", "out.value"), ("x.grad", "x.grad"))
    return [
        Spec(
            f"{method}:alone",
            method,
            f"x, y = Node(a), Node(b)\nout = x {symbol} y\nout.backward()",
            pair,
            XY,
        ),
        Spec(
            f"{method}:upstream",
            method,
            f"x, y = Node(a), Node(b)\nh = x {symbol} y\nout = h * c\nout.backward()",
            grads,
            (*XY, ("c", "c")),
        ),
        Spec(
            f"{method}:repeat",
            method,
            f"x = Node(a)\nout = x {symbol} x\nout.backward()",
            one,
            (("x", "a"),),
        ),
        Spec(
            f"{method}:number",
            method,
            f"x = Node(a)\nout = x {symbol} k\nout.backward()",
            one,
            (("x", "a"), ("k", "k")),
        ),
        Spec(
            f"{reflected}:number",
            reflected,
            f"x = Node(a)\nout = k {symbol} x\nout.backward()",
            one,
            (("k", "k"), ("x", "a")),
        ),
    ]


def _unary_specs(method: str, expression: str, domain: str) -> list[Spec]:
    """op(x) alone, under an upstream factor, and added to x."""
    tag = f"{method}:{domain}" if method == "relu" else method
    start = f"x = Node({_SIGNED[domain]})"
    shown = (("x", _SIGNED[domain]), *((("n", "n"),) if method == "__pow__" else ()))
    grad = (("x.grad", "x.grad"),)
    return [
        Spec(
            f"{tag}:alone",
            method,
            f"{start}\nout = {expression}\nout.backward()",
            (("value", "out.value"), ("out.grad", "out.grad"), ("x.grad", "x.grad")),
            shown,
        ),
        Spec(
            f"{tag}:upstream",
            method,
            f"{start}\nh = {expression}\nout = h * c\nout.backward()",
            grad,
            (*shown, ("c", "c")),
        ),
        Spec(
            f"{tag}:repeat", method, f"{start}\nout = {expression} + x\nout.backward()", grad, shown
        ),
    ]


#: the compositions that test backward()'s walk: their names, code, and what they observe
_WALKS = [
    (
        "chain",
        "x = Node(a)\nh1 = x * b\nh2 = h1 * c\nout = h2 * k\nout.backward()",
        ("x.grad", "h1.grad", "h2.grad"),
    ),
    ("diamond", "v = Node(a)\nb1 = v + v\nc1 = b1 + b1\nc1.backward()", ("v.grad", "b1.grad")),
    (
        "shared-long",
        "x = Node(a)\nh = x * b\nt = h * c\nu = t * k\nout = u + h\nout.backward()",
        ("x.grad", "h.grad"),
    ),
    (
        "shared-long-left",
        "x = Node(a)\nh = x * b\nt = h * c\nu = t * k\nout = h + u\nout.backward()",
        ("x.grad", "h.grad"),
    ),
    # twelve independent copies: a walk whose order depends on how a set
    # of nodes happens to iterate cannot get all of them right by chance
    (
        "shared-many",
        "x = Node(a)\ntotal = x * 0.0\nfor i in range(12):\n    h = x * (b * (1 + 0.1 * i))\n"
        "    u = h * c * k\n    total = total + (u + h if i % 2 else h + u)\ntotal.backward()",
        ("x.grad",),
    ),
    (
        "twice",
        "x, y = Node(a), Node(b)\nout = x * y\nout.backward()\nout.backward()",
        ("x.grad", "y.grad"),
    ),
    (
        "rebuilt",
        "w = Node(a)\nfirst = w * b\nfirst.backward()\nsecond = w * c\nsecond.backward()",
        ("w.grad",),
    ),
    (
        "reuse",
        "x, y = Node(a), Node(b)\nh = x * y\nfirst = h * 0.0 + x * c\nfirst.backward()\n"
        "second = h * k\nsecond.backward()",
        ("x.grad", "y.grad"),
    ),
]

#: + and * alone at the very operands the compositions of _WALKS meet: a
#: rule wrong only for larger values must not pass for a wrong walk
_MET = [
    ("__mul__", "a * b", "c"),
    ("__mul__", "a * b * c", "k"),
    ("__add__", "2 * a", "2 * a"),
    ("__add__", "a * b * c * k", "a * b"),
    ("__add__", "a * b", "a * b * c * k"),
]


#: the name of a probe run with its output seeded by the probe, in front of the probe's own name
SEEDED = "seeded:"
#: and of one that calls the operations' own backward steps, outputs first, instead of backward()
STEP = "step:"
#: the probes of each operation that make its node in one step, by what
#: follows the method in their names (not op(x) + x, whose + is a step of its
#: own; k - x is one where __rsub__ makes its own node, as faults checks)
_STEPPED_KINDS: dict[str, frozenset[str]] = {
    **{method: frozenset({"alone", "upstream", "repeat", "number"}) for method, _, _ in BINARY},
    **{reflected: frozenset({"number"}) for _, _, reflected in BINARY},
    **{
        method: frozenset(
            {
                "alone",
                "upstream",
                "positive:alone",
                "negative:alone",
                "positive:upstream",
                "negative:upstream",
            }
        )
        for method, _, _ in UNARY
    },
}
_BACKWARD_CALL = re.compile(r"^(?P<indent>\s*)(?P<node>\w+)\.backward\(\)$", re.MULTILINE)


def _stepped(code: str) -> str:
    """The probe with `out.backward()` replaced by
    the seed and each node's own step, outputs first."""
    made = [
        line.split(" = ")[0] for line in code.splitlines() if " = " in line and "Node(" not in line
    ]
    calls = "".join(f"\n{node}._backward()" for node in reversed(made))
    return _BACKWARD_CALL.sub(lambda m: f"{m['node']}.grad = 1.0{calls}", code)


def _seeded(code: str) -> str:
    """The probe with `node.grad = 1.0` before each
    `node.backward()`: the seed given, not left to backward()."""
    return _BACKWARD_CALL.sub(lambda m: f"{m['indent']}{m['node']}.grad = 1.0\n{m[0]}", code)


def start_values(spec: Spec, inputs: Inputs) -> str:
    """ "x = 1.592, y = -2.204": where a probe starts, for the evidence."""
    scope = {name: value for name, value in inputs.items()}
    return ", ".join(
        f"{name} = {show_input(eval(expression, {'abs': abs}, scope))}"
        for name, expression in spec.start
    )


def inputs_for(seed: int) -> Inputs:
    """Generic values: magnitudes of order one, away from 1, no two equal or opposite."""
    rng = random.Random(f"{seed}/localize")
    drawn: list[float] = []
    while len(drawn) < 4:
        # a > 0 and b < 0, so that each binary operation meets both signs; c and k either
        sign = 1 if len(drawn) == 0 else -1 if len(drawn) == 1 else 1 if rng.random() < 0.5 else -1
        value = round(rng.uniform(0.6, 2.4), 3) * sign
        if abs(abs(value) - 1) > 0.15 and all(
            abs(abs(value) - abs(other)) > 0.2 for other in drawn
        ):
            drawn.append(value)
    a, b, c, k = drawn
    return {"a": a, "b": b, "c": c, "k": k, "n": EXPONENT}


@dataclass(frozen=True, slots=True)
class Localization:
    """The localization probes' specs, what the student's
    class gave on them, and what the reference gives."""

    specs: tuple[Spec, ...]
    inputs: Inputs
    got: tuple[ProbeRun | None, ...]
    expected: tuple[ProbeRun, ...]
    #: the run ran out of time twice (`localize`): how far it got
    #: hangs on how busy the machine was, so it is no evidence
    unfinished: bool = False

    def view(self, kind: str = "") -> Localization:
        """The probes of one kind under their plain names: as backward() seeds and walks
        them (""), seeded by the probe (SEEDED), or by each operation's own step (STEP)."""
        kept = [i for i, spec in enumerate(self.specs) if kind_of(spec.name) == kind]
        return Localization(
            tuple(
                dataclasses.replace(self.specs[i], name=self.specs[i].name.removeprefix(kind))
                for i in kept
            ),
            self.inputs,
            tuple(self.got[i] for i in kept),
            tuple(self.expected[i] for i in kept),
            self.unfinished,
        )

    def merged(self, other: Localization) -> Localization:
        """These probes and another run's (of other kinds, on the same inputs)."""
        return Localization(
            self.specs + other.specs,
            self.inputs,
            self.got + other.got,
            self.expected + other.expected,
            self.unfinished or other.unfinished,
        )


#: the kinds of localization probes, by the start of their names: as backward()
#: seeds and walks them, seeded by the probe, and each operation's own step
KINDS = ("", SEEDED, STEP)


def kind_of(name: str) -> str:
    return next((k for k in (SEEDED, STEP) if name.startswith(k)), "")


def probe_exercise(exercise: Exercise, kinds: tuple[str, ...] = KINDS) -> Exercise:
    """The exercise with the localization probes (of `kinds`)
    in place of its own: the same class, rules and limits."""
    probes = tuple(
        _probe(spec, index, exercise.contract)
        for index, spec in enumerate(specs())
        if kind_of(spec.name) in kinds
    )
    return dataclasses.replace(exercise, id=f"{exercise.id}-localize", probes=probes, mutants=())


def probe_group(exercise: Exercise, seed: int, kinds: tuple[str, ...] = KINDS) -> Group:
    """The localization probes as a group to launch, beside an exercise's own or alone."""
    synthetic = probe_exercise(exercise, kinds)
    inputs = inputs_for(seed)
    return Group(synthetic, tuple(inputs for _ in synthetic.probes), seed)


def localize(
    sandbox: Sandbox,
    submission: Submission,
    exercise: Exercise,
    seed: int,
    time_limit: float | None = None,
    kinds: tuple[str, ...] = KINDS,
) -> Localization | None:
    """Run the localization probes (of `kinds`) on the submission's
    class in the sandbox; None for a non-engine exercise."""
    if not exercise.kind.operations:
        return None
    group = probe_group(exercise, seed, kinds)
    run = sandbox.launch(submission, [group], device="cpu", time_limit=time_limit).result()
    if out_of_time(
        run
    ):  # a busy machine, or code that loops: asked again, the first never tells which
        run = sandbox.launch(submission, [group], device="cpu", time_limit=time_limit).result()
    if not run.groups or run.groups[0].missing:
        return None
    return from_run(run.groups[0], seed, kinds, unfinished=out_of_time(run))


def out_of_time(run: RunResult) -> bool:
    """Whether a run was stopped for its wall-clock or
    CPU time, as a whole or in one of its exercises."""
    return any(
        stop is not None and stop.kind in OUT_OF_TIME
        for stop in (run.stop, *(g.stop for g in run.groups))
    )


def from_run(
    group: GroupRun, seed: int, kinds: tuple[str, ...] = KINDS, *, unfinished: bool = False
) -> Localization:
    """The student's (or a mutant's) run of the localization
    probes (of `kinds`), beside the reference's."""
    every, expected = specs(), expected_runs(seed)
    kept = [i for i, spec in enumerate(every) if kind_of(spec.name) in kinds]
    return Localization(
        tuple(every[i] for i in kept),
        inputs_for(seed),
        group.probes,
        tuple(expected[i] for i in kept),
        unfinished,
    )


@cache
def expected_runs(seed: int) -> tuple[ProbeRun, ...]:
    """The reference engine on every localization probe (our code: it runs here)."""
    inputs = inputs_for(seed)
    found: dict[str, ProbeRun] = {}
    for spec in specs():
        if spec.name.startswith(
            STEP
        ):  # the same gradients as backward() gives: the reference has no steps
            found[spec.name] = found[spec.name.removeprefix(STEP)]
            continue
        got = run_probe(
            compile_probe(spec.name, spec.code, dict(spec.observe)),
            namespace("none", {"Node": Node}, inputs, "cpu"),
        )
        found[spec.name] = (
            ProbeRun(observations=None, error=got)
            if isinstance(got, ErrorInfo)
            else ProbeRun(observations=got, error=None)
        )
    return tuple(found.values())


def _probe(spec: Spec, index: int, contract: Contract = DEFAULT) -> Probe:
    """A localization probe in the exercise's contract (its
    observations keep their labels: out.value's is value)."""
    observe = tuple(
        (label, rename(expression, contract, "eval")) for label, expression in spec.observe
    )
    return Probe(
        name=spec.name,
        about="",
        points=0.0,
        visibility="hidden",
        partial=False,
        inputs=(),
        code=rename(spec.code, contract),
        observe=observe,
        output=None,
        gradients=(),
        tolerance=DEFAULT_TOLERANCE,
        cuda_tolerance=DEFAULT_TOLERANCE,
        devices=("cpu",),
        raises=None,
        printed=(),
        line=index,
    )


def built_on(method: str) -> frozenset[str]:
    """Every method `method` may be built from, directly or through another."""
    seen: set[str] = set()
    todo = [method]
    while todo:
        for base in BUILT_FROM.get(todo.pop(), frozenset()):
            if base not in seen:
                seen.add(base)
                todo.append(base)
    return frozenset(seen - {method})  # / and k / x may each be built from the other
