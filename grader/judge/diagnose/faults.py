"""Read the localization probes (grader.judge.diagnose.localize):
which rule of an engine is wrong, and how.

The walk first: a new node's grad must be 0 and an output's 1 after backward(); if not, the seed is
wrong and nothing below it can be read. Then each operation alone, with upstream 1: its value and
local slopes tell swapped slopes, a negated one, a slope taken from the output, or another wrong
slope, for the operand that is wrong. Under an upstream factor a right slope that ignores it is a
missing upstream factor; with its operand repeated, a contribution lost is an overwrite. A wrong
traversal shows only in compositions of operations found right: a chain (order), a diamond
(visited set), a node shared by a short and a long path (order), backward twice and a rebuilt graph
(state kept or reset between calls). An operation that can be built from a faulty one (- from + and
neg, / from * and **, k - x from x - y) is not blamed for it: the root rule is named. Where every
operation fails alone, nothing is claimed: the fault is not in one rule.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from grader.core.compare import fmt
from grader.core.values import Number
from grader.judge.diagnose.localize import (
    BINARY,
    EXPONENT,
    SEEDED,
    STEP,
    UNARY,
    Localization,
    built_on,
    start_values,
)
from grader.judge.diagnose.slope_forms import close, how_wrong, neg, output_form, show, slope_at
from grader.judge.report import How, RuleFault

#: what an error says when the operation itself is missing, not wrong
MISSING = ("unsupported operand", "has no attribute", "bad operand type")
#: what compositions of + and * need right before they can test the walk (with the ":met:" probes)
INGREDIENTS = (
    "__add__:alone",
    "__mul__:alone",
    "__add__:repeat",
    "__mul__:repeat",
    "__mul__:upstream",
)


@dataclass(frozen=True, slots=True)
class Fault:
    rule: RuleFault
    #: what the probes showed, in words a student can check
    evidence: str
    #: state kept or reset between backward() calls: it
    #: explains only checks that call backward() again
    across_calls: bool = False
    #: the operation's value is wrong (not only a slope):
    #: it explains a check that reads values alone
    forward: bool = False
    #: found only once the probes seeded the output themselves:
    #: another fault (the seed) hides it from the checks
    masked: bool = False


def faults(
    loc: Localization,
    overwrites: frozenset[str] | None = None,
    stepped: frozenset[str] = frozenset(),
) -> tuple[Fault, ...]:
    """The root faults the localization probes show; empty where they show none, or no single rule.

    `overwrites`: the methods and functions of the submission that overwrite a
    grad (grader.judge.names), which tell an operation that loses a contribution
    from a walk that does, for every operation alike. `stepped`: the operations
    that make their own backward step (a closure defined in the method,
    grader.judge.names), which their step probes read where the walk hides them.
    """
    own = loc.view()
    reader = _Reader(own)
    seed = reader.seeding()
    given = loc.view(SEEDED)
    if seed is None:
        found, right = _read(own, overwrites)
    elif reader.never_seeds() and _Reader(given).keeps_the_seed():
        # the probes seeded the output themselves: what else is wrong, masked
        # behind the missing seed, each rule read on its own probes as before
        masked, right = _read(given, overwrites)
        found = (
            seed,
            *(_masked(f, "with out.grad = 1.0 set before out.backward()") for f in masked),
        )
    else:
        found, right = (seed,), set()
    # each operation the walk left unread (it never ran,
    # raised or misordered) by its own step, seeded
    read = right | {f.rule.method for f in found}
    steps, _ = _read(loc.view(STEP), overwrites, stepped=stepped - read)
    return (
        *found,
        *(
            _masked(
                f, "out.grad set to 1.0 and each node's own _backward() called, without backward()"
            )
            for f in steps
        ),
    )


def hides_more(loc: Localization) -> bool:
    """Whether the walk may hide what else is wrong, so that the probes seeded
    by themselves and the operations' own steps are worth a run: the output is
    not seeded, no operation reads right through it, or it is wrong."""
    own = loc.view()
    if _Reader(own).seeding() is not None:
        return True
    found, right = _read(own, None)
    return not right or any(f.rule.method == "backward" for f in found)


def _masked(fault: Fault, how: str) -> Fault:
    """A fault the checks' own values do not show: found once the probes gave what hides it."""
    return dataclasses.replace(fault, masked=True, evidence=f"{fault.evidence}; {how}")


def _read(
    loc: Localization, overwrites: frozenset[str] | None, stepped: frozenset[str] | None = None
) -> tuple[tuple[Fault, ...], set[str]]:
    """The faults of the operations and the walk, read on probes whose output is
    seeded (by backward() or the probe), and the operations found right. With
    `stepped`, the probes called each operation's own step by hand, with no walk: only
    these operations, each of which makes its own step, are read, each on its own."""
    reader = _Reader(loc)
    walk = stepped is None
    inputs_only = reader.inputs_only() if walk else None
    if inputs_only is not None:
        return (inputs_only,), set()
    # + and * right alone, under a factor and with an
    # operand repeated: compositions of them test the walk
    ingredients = walk and reader.ingredients()
    if ingredients:
        found_walk = reader.structure()
        # a walk that misses or misorders nodes: no operation can be read through it
        if found_walk is not None:
            return (found_walk,), set()
    found, right = reader.operations(each_alone=not walk)
    if not right or (found and all(reader.nothing_passed(f.rule.method) for f in found)):
        # no operation right, or nothing passed back by any: the walk, not one rule
        return (), set()
    if stepped is not None:
        return tuple(f for f in found if f.rule.method in stepped), right
    found = _walk_overwrites(_roots(found), overwrites)
    if ingredients:
        state = reader.state()
        if state is not None:
            found.append(state)
    return tuple(found), right


def _roots(found: list[Fault]) -> list[Fault]:
    """The faults no other one explains: an operation built from a faulty one is not blamed."""
    kept = []
    for fault in found:
        others = {g.rule.method for g in found if g is not fault}
        if not built_on(fault.rule.method) & others:
            kept.append(fault)
    return kept


def _walk_overwrites(found: list[Fault], overwrites: frozenset[str] | None) -> list[Fault]:
    """Every operation loses a contribution, and only the walk overwrites grads: the walk's
    fault, not theirs."""
    lost = [f for f in found if f.rule.how == "accumulation" and f.rule.method != "backward"]
    if len(lost) < 2 or not overwrites or overwrites & {f.rule.method for f in lost}:
        return found
    whole = _fault(
        "backward",
        "",
        "accumulation",
        f"{lost[0].evidence}, in every operation alike, and backward() "
        "assigns grads with = where += belongs",
    )
    return [f for f in found if f not in lost] + [whole]


class _Reader:
    """One localization's probes by name: what the student's class gave, beside the reference,
    and the faults they show. A probe a view does not hold (an operation's own step where only the
    walk ran) reads as one that did not run."""

    def __init__(self, loc: Localization) -> None:
        self.loc = loc
        self.index = {spec.name: i for i, spec in enumerate(loc.specs)}

    def x_of(self, name: str) -> float | None:
        """The value x starts from in a probe of one operation."""
        start = dict(self.loc.specs[self.index[name]].start).get("x")
        if start is None:
            return None
        value = eval(start, {"abs": abs}, dict(self.loc.inputs))  # our own expression of the inputs
        return float(value) if isinstance(value, (int, float)) else None

    def at(self, name: str) -> str:
        return start_values(self.loc.specs[self.index[name]], self.loc.inputs)

    def got(self, name: str, label: str) -> float | None:
        if name not in self.index:  # a probe this view has not (an operation's step of a walk)
            return None
        run = self.loc.got[self.index[name]]
        value = None if run is None or run.observations is None else run.observations.get(label)
        return value.value if isinstance(value, Number) else None

    def want(self, name: str, label: str) -> float | None:
        if name not in self.index:
            return None
        run = self.loc.expected[self.index[name]]
        value = None if run.observations is None else run.observations.get(label)
        return value.value if isinstance(value, Number) else None

    def ran(self, name: str) -> bool | None:
        """True: it ran; False: it raised something other than
        a missing operation; None: the operation is missing."""
        run = self.loc.got[self.index[name]] if name in self.index else None
        if run is None:
            return False
        if run.error is not None:
            return None if any(text in run.error.message for text in MISSING) else False
        return run.observations is not None

    def numbers(self, name: str) -> bool:
        """Every observation of the probe is a number, where the reference's is."""
        return all(
            self.got(name, label) is not None
            for label, _ in self.loc.specs[self.index[name]].observe
            if self.want(name, label) is not None
        )

    def nothing_passed(self, method: str) -> bool:
        """The operation's probes ran and every gradient they gave is 0."""
        runs = [self.loc.got[i] for spec, i in self.index.items() if spec.startswith(f"{method}:")]
        grads = []
        for run in runs:
            if run is not None and run.observations is not None:
                for label, value in run.observations.items():
                    if label.endswith(".grad") and label != "out.grad":
                        grads.append(value)
        return bool(grads) and all(isinstance(v, Number) and v.value == 0 for v in grads)

    def right(self, name: str) -> bool | None:
        """Whether every observation matches; None where the operation is missing."""
        ran = self.ran(name)
        if not ran:
            return ran
        labels = [label for label, _ in self.loc.specs[self.index[name]].observe]
        return all(close(self.got(name, label), self.want(name, label)) for label in labels)

    def shown(self, name: str, label: str) -> str:
        return (
            f"{label} is {show(self.got(f'traversal:{name}', label))} where "
            f"{show(self.want(f'traversal:{name}', label))} was expected"
        )

    def inputs_only(self) -> Fault | None:
        """+ and * right alone, yet (x * y) * c leaves x at 0: the walk reached only the output's
        own inputs."""
        if (
            self.right("__add__:alone")
            and self.right("__mul__:alone")
            and self.got("__mul__:upstream", "x.grad") == 0
            and self.want("__mul__:upstream", "x.grad")
        ):
            return _fault(
                "backward",
                "",
                "traversal-order",
                f"(x * y) * c at {self.at('__mul__:upstream')}: x.grad is "
                "0, each operation right alone: only the output's own "
                "inputs got a gradient; walk the sorted nodes outputs first",
            )
        return None

    def ingredients(self) -> bool:
        """Whether + and * are right alone, under a factor and with an operand repeated (and
        where met inside compositions): then compositions of them test the walk."""
        return all(
            self.right(spec.name)
            for spec in self.loc.specs
            if spec.name in INGREDIENTS or ":met:" in spec.name
        )

    def seeding(self) -> Fault | None:
        fresh = self.got("fresh", "x.grad")
        if fresh is not None and fresh != 0:
            return _fault(
                "backward",
                "",
                "seeding",
                f"a new node's grad is {fmt(fresh)}, not 0: every node must "
                "start at 0 (only the output is seeded, with 1.0, by backward())",
            )
        seeds = [
            self.got(s.name, "out.grad")
            for s in self.loc.specs
            if s.name.endswith(":alone") and self.ran(s.name)
        ]
        seeds = [s for s in seeds if s is not None]
        if seeds and all(not close(s, 1.0) for s in seeds):
            return _fault(
                "backward",
                "",
                "seeding",
                f"out.grad is {show(seeds[0])} after out.backward(), not 1.0: "
                "backward() must seed the output with 1.0 before the walk",
            )
        return None

    def never_seeds(self) -> bool:
        """backward() leaves the output's grad as it was (0): what a probe sets before it stays."""
        seeds = [
            self.got(s.name, "out.grad")
            for s in self.loc.specs
            if s.name.endswith(":alone") and self.ran(s.name)
        ]
        return self.got("fresh", "x.grad") == 0 and bool(seeds) and all(s == 0 for s in seeds)

    def keeps_the_seed(self) -> bool:
        """Seeded by the probe, the output's grad is still 1.0 after backward()."""
        seeds = [
            self.got(s.name, "out.grad")
            for s in self.loc.specs
            if s.name.endswith(":alone") and self.ran(s.name)
        ]
        return bool(seeds) and all(close(s, 1.0) for s in seeds)

    def operations(self, each_alone: bool = False) -> tuple[list[Fault], set[str]]:
        """The operations' faults, and those found right. `each_alone`: each
        probe ran one operation's own step, so k - x is read whatever x - y
        gave (faults keeps it only where __rsub__ makes its own node)."""
        found: list[Fault] = []
        right: set[str] = set()
        for method, symbol, reflected in BINARY:
            verdict = self.binary(method, symbol)
            if verdict is True:
                right.add(method)
                found += self.around(
                    method, f"x {symbol} y", f"{method}:upstream", f"{method}:repeat"
                )
                for name, expression, owner in (
                    (f"{method}:number", f"x {symbol} k", method),
                    (f"{reflected}:number", f"k {symbol} x", reflected),
                ):
                    found += self.single(name, owner, expression)
            elif isinstance(verdict, Fault):
                found.append(verdict)
            if verdict is not True and each_alone:
                found += self.single(f"{reflected}:number", reflected, f"k {symbol} x")
        add_right = bool(
            self.right("__add__:alone") and self.right("__add__:repeat")
        )  # op(x) + x needs a right +
        for method, expression, domain in UNARY:
            tag = f"{method}:{domain}" if method == "relu" else method
            alone = self.single(f"{tag}:alone", method, expression)
            if alone:
                found += [f for f in alone if all(g.rule.method != method for g in found)]
            elif self.right(f"{tag}:alone"):
                if self.want(f"{tag}:alone", "x.grad"):  # a closed gate's 0 proves nothing
                    right.add(method)
                found += self.around(
                    method, expression, f"{tag}:upstream", f"{tag}:repeat" if add_right else None
                )
        return found, right

    def binary(self, method: str, symbol: str) -> bool | Fault | None:
        name = f"{method}:alone"
        ran = self.ran(name)
        if ran is None:
            return None
        expression = f"x {symbol} y"
        if not ran:
            return None  # it raised or stopped alone: no values to read a rule from
        value, want_value = self.got(name, "value"), self.want(name, "value")
        if not self.numbers(name):
            # a grad or a value that is no number (a node, a list): no slope to read from it
            return None
        if not close(value, want_value):
            return _fault(
                method,
                "both",
                "wrong-value",
                f"{expression} at {self.at(name)} is {show(value)}, not {show(want_value)}",
                forward=True,
            )
        gx, gy = self.got(name, "x.grad"), self.got(name, "y.grad")
        ex, ey = self.want(name, "x.grad"), self.want(name, "y.grad")
        if close(gx, ex) and close(gy, ey):
            return True
        shown = (
            f"{expression} alone at {self.at(name)}: x.grad {show(gx)}, y.grad {show(gy)} where "
            f"{show(ex)} and {show(ey)} were expected"
        )
        if gx == 0 and gy == 0 and (ex or ey) and self.nothing_passed(method):
            return _fault(
                method,
                "both",
                "no-backward",
                f"{shown}: the value is right, and no probe of {method} passes any gradient back",
            )
        if close(gx, ey) and close(gy, ex) and not close(ex, ey):
            return _fault(method, "both", "swapped", f"{shown}: each operand got the other's slope")
        hows = {
            operand: how_wrong(g, e, value)
            for operand, g, e in (("self", gx, ex), ("other", gy, ey))
            if not close(g, e)
        }
        operand = next(iter(hows)) if len(hows) == 1 else "both"
        how = next(iter(set(hows.values()))) if len(set(hows.values())) == 1 else "wrong-local"
        return _fault(method, operand, how, shown)

    def single(self, name: str, method: str, expression: str) -> list[Fault]:
        """A probe of one operation with one node, x: its value and x's slope."""
        ran = self.ran(name)
        if not ran or self.right(name) or not self.numbers(name):
            # missing, raised or stopped alone, not numbers
            # (no values to read a rule from), or right
            return []
        value, want_value = self.got(name, "value"), self.want(name, "value")
        if not close(value, want_value):
            how: How = (
                "negated"
                if close(value, neg(want_value))
                and close(self.got(name, "x.grad"), neg(self.want(name, "x.grad")))
                else "wrong-value"
            )
            return [
                _fault(
                    method,
                    "self",
                    how,
                    f"{expression} at {self.at(name)} is {show(value)}, not {show(want_value)}",
                    forward=True,
                )
            ]
        g, e = self.got(name, "x.grad"), self.want(name, "x.grad")
        if g == 0 and e and self.nothing_passed(method):
            return [
                _fault(
                    method,
                    "self",
                    "no-backward",
                    f"{expression} at {self.at(name)}: the value is right, "
                    f"x.grad is 0 where {show(e)} was expected, and no probe "
                    f"of {method} passes any gradient back",
                )
            ]
        how = (
            "missing-coefficient"
            if method == "__pow__" and g is not None and e and close(g * EXPONENT, e)
            else how_wrong(
                g, e, value, slope_at(method, value), output_form(method, self.x_of(name))
            )
        )
        return [
            _fault(
                method,
                "self",
                how,
                f"{expression} at {self.at(name)}: x.grad is {show(g)} where "
                f"{show(e)} was expected",
            )
        ]

    def around(
        self, method: str, expression: str, upstream: str, repeat: str | None
    ) -> list[Fault]:
        """An operation right alone, under an upstream factor c and with x used twice."""
        alone = upstream.replace(":upstream", ":alone")
        if (
            self.ran(upstream)
            and not self.right(upstream)
            and (method == "__mul__" or self.right("__mul__:alone"))
            and close(self.got(upstream, "x.grad"), self.got(alone, "x.grad"))
        ):  # the factor c, left out
            return [
                _fault(
                    method,
                    "both" if "y" in expression else "self",
                    "missing-upstream",
                    f"({expression}) * c at {self.at(upstream)}: the slopes are right "
                    "alone but not multiplied by c, the gradient arriving from above",
                )
            ]
        if (
            repeat is not None
            and self.ran(repeat)
            and self.numbers(repeat)
            and not self.right(repeat)
        ):
            used = expression.replace("y", "x") if "y" in expression else f"{expression} + x"
            return [
                _fault(
                    method,
                    "both",
                    "accumulation",
                    f"{used} at {self.at(repeat)}: x.grad is "
                    f"{show(self.got(repeat, 'x.grad'))} where "
                    f"{show(self.want(repeat, 'x.grad'))} was expected: a node "
                    "used twice must get both contributions (+=, not =)",
                )
            ]
        return []

    def wrong(self, name: str) -> bool:
        """The walk probe gave values, and they are wrong
        (one that raised or stopped shows nothing)."""
        probe = f"traversal:{name}"
        return bool(self.ran(probe)) and self.numbers(probe) and not self.right(probe)

    def structure(self) -> Fault | None:
        """One backward() call over + and *, each right
        alone: every node visited once, outputs first."""
        if self.wrong("chain"):
            return _fault(
                "backward",
                "",
                "traversal-order",
                "x * b * c * k, each operation right alone: "
                f"{self.shown('chain', 'x.grad')}: the walk must visit every node, outputs first",
            )
        if self.wrong("diamond"):
            twice = close(
                self.got("traversal:diamond", "v.grad"),
                2 * (self.want("traversal:diamond", "v.grad") or 0),
            )
            return _fault(
                "backward",
                "",
                "visited" if twice else "traversal-order",
                f"b = v + v; c = b + b: {self.shown('diamond', 'v.grad')}"
                + (
                    ": b was walked twice (keep a set of the nodes already listed)" if twice else ""
                ),
            )
        for name in ("shared-long", "shared-long-left", "shared-many"):
            if self.wrong(name):
                return _fault(
                    "backward",
                    "",
                    "traversal-order",
                    f"h used directly and through h * c * k: {self.shown(name, 'x.grad')}: a node "
                    "may pass its grad on only after every node that uses it has added to it",
                )
        return None

    def state(self) -> Fault | None:
        """backward() called again: on the same graph, on
        a rebuilt one, on a new graph over an old node.

        Grads reset by each call leave a rebuilt graph's leaf with the last
        call's contribution alone; a mark of visited nodes kept from the first
        call makes the same graph's second walk skip it while a rebuilt graph
        comes out right; anything else left over between calls shows otherwise.
        """
        twice, rebuilt, reuse = self.wrong("twice"), self.wrong("rebuilt"), self.wrong("reuse")
        if not (twice or rebuilt or reuse):
            return None
        c = self.loc.inputs["c"]
        reset = isinstance(c, float) and close(
            self.got("traversal:rebuilt", "w.grad"), c
        )  # w * c's share alone
        if reset:
            return _fault(
                "backward",
                "",
                "accumulation",
                f"w * b, then w * c: {self.shown('rebuilt', 'w.grad')}: "
                "backward() resets grads that must keep adding across calls",
                across_calls=True,
            )
        if not rebuilt:
            return _fault(
                "backward",
                "",
                "visited",
                f"backward() twice on x * y: {self.shown('twice', 'x.grad')}: "
                "a mark of visited nodes kept from the first call makes the second walk skip them",
                across_calls=True,
            )
        return _fault(
            "backward",
            "",
            "visited",
            f"w * b, then w * c: {self.shown('rebuilt', 'w.grad')}: what the "
            "first backward() kept (a list or a set of visited nodes, a default "
            "argument) leaks into the next call: keep it local to one call",
            across_calls=True,
        )


def _fault(
    method: str,
    operand: str,
    how: How,
    evidence: str,
    *,
    across_calls: bool = False,
    forward: bool = False,
) -> Fault:
    return Fault(
        RuleFault(method=method, operand=operand, how=how),  # type: ignore[arg-type]
        evidence,
        across_calls,
        forward,
    )
