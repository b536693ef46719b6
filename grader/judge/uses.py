"""Which operations of the lessons' `Node` each probe calls, and which an exercise may call.

A probe of an engine exercise may use what the exercise teaches (the methods its starter leaves to
write) and the base every engine of the lessons' kind has: `Node(v)`, `.value`, `.grad`, `+` and
`*` of two nodes, and `backward()`. Anything else (a `tanh` in a check of `backward()`, a
`sigmoid` in a check of `**`, or `x * 2.0` in a check of `backward()`, where a student's early `*`
takes only nodes) would cost points to a correct engine that simply lacks it, such as micrograd's
`Value`; a probe wraps such a number itself (`x * Node(2.0)`). The operations a probe calls are
found by running it on a reference engine that records every method called from the probe's own
code (not the calls one method makes to another), and whether it gave one a plain number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from grader.core.contract import aliased
from grader.core.exercise import Exercise, Probe
from grader.judge.course_ops import CourseOp, load_ops, with_ops
from grader.judge.diagnose.slips import METHODS, to_write
from grader.run.child.execute import compile_probe, namespace, run_probe
from grader.run.inputs import draw_probe_inputs
from reference.scalar import Node

#: what every engine of the lessons' kind has, so any
#: probe may build its graph with it: + and * of two nodes
BASE = frozenset({"__add__", "__mul__", "backward"})
#: the binary operations, which a probe may call with a plain number as the other operand
BINARY = frozenset(
    {
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__rtruediv__",
    }
)


def with_number(method: str) -> str:
    """What a probe uses when it calls `method` with a
    plain number as the other operand (x * 2.0, 3 * x)."""
    return f"{method}(number)"


#: the engine's interface, in the order a student reads it
INTERFACE = (*METHODS, "backward")


def allowed(exercise: Exercise) -> frozenset[str]:
    """What the probes of an engine exercise may call: what it teaches (with a
    number for an operation it teaches), and the base. A number the exercise
    does not teach to take is wrapped by the probe (Node(2.0)): an engine
    whose * takes only nodes is not wrong where * is not what is taught."""
    taught = to_write(exercise.starter)
    return taught | BASE | {with_number(m) for m in taught & BINARY}


@lru_cache(maxsize=512)
def probe_uses(
    exercise: Exercise, probe: Probe, seeds: Sequence[int] = (0, 1, 2)
) -> frozenset[str]:
    """The engine's methods `probe` calls directly, on the
    inputs of each seed (an exponent drawn may differ)."""
    compiled = compile_probe(probe.name, probe.code, dict(probe.observe))
    used: set[str] = set()
    for seed in seeds:
        # a recording engine is made per call: aliased, not adapt, which would keep each one
        engine = aliased(_recording(used, load_ops(exercise.course_ops)), exercise.contract)
        run_probe(
            compiled,
            namespace(
                "none",
                {exercise.contract.class_name: engine},
                draw_probe_inputs(exercise.id, probe, seed),
                "cpu",
            ),
        )
    return frozenset(used)


def exercise_uses(exercise: Exercise) -> frozenset[str]:
    """Every method any probe of an engine exercise calls."""
    if not exercise.kind.operations:
        return frozenset()
    return frozenset().union(*(probe_uses(exercise, probe) for probe in exercise.probes))


def _recording(used: set[str], ops: tuple[CourseOp, ...] = ()) -> type[Node]:
    """A reference `Node`, with the course's operations,
    that notes each method called from outside the engine."""
    depth = [0]
    base = with_ops(Node, ops)

    def wrap(name: str) -> Callable[..., Any]:
        rule: Callable[..., Any] = getattr(base, name)

        def method(self: Node, *args: Any) -> Any:
            if depth[0] == 0:
                used.add(name)
                if (
                    args and not isinstance(args[0], Node) and name in BINARY
                ):  # x * 2.0: a number, not a node
                    used.add(with_number(name))
            depth[0] += 1
            try:
                return rule(self, *args)
            finally:
                depth[0] -= 1

        return method

    wrapped = (*INTERFACE, *(op.name for op in ops))
    return type(
        "RecordingNode", (base,), {"__slots__": (), **{name: wrap(name) for name in wrapped}}
    )
