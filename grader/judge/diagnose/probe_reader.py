"""Reading one localization by its probes' names: what
the student's class gave on each, beside the reference.

grader.judge.diagnose.faults reads a rule out of these numbers; this only looks them up. A probe a
view does not hold (an operation's own step where only the walk ran) reads as one that did not run.
"""

from __future__ import annotations

from grader.core.values import Number
from grader.judge.diagnose.localize import Localization, start_values
from grader.judge.diagnose.slope_forms import close, show

#: what an error says when the operation itself is missing, not wrong
MISSING = ("unsupported operand", "has no attribute", "bad operand type")


class ProbeReader:
    """One localization's probes by name: what the student's class gave, beside the reference."""

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
        grads = [
            v
            for run in runs
            if run is not None and run.observations is not None
            for label, v in run.observations.items()
            if label.endswith(".grad") and label != "out.grad"
        ]
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
