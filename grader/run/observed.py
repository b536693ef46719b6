"""What a sandboxed run saw, as plain records: the hand-off from the sandbox to checks and
diagnosis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from grader.core.values import ErrorInfo, Value

#: why a run ended before its work was done: the student's code ran out of time, CPU or memory, was
#: killed by a signal, ended the process, printed or returned too much, or wrote to the grader's
#: reply; or the grader failed (never the student's fault)
StopKind = Literal[
    "timeout", "cpu", "memory", "signal", "exit", "reply-size", "forged-reply", "grader", "unknown"
]


@dataclass(frozen=True, slots=True)
class Stop:
    """Why a run stopped early: a machine-readable kind, a sentence, and what the student might
    do."""

    kind: StopKind
    #: "did not finish within 5 s (the time limit)", completing "Your code ..."
    text: str
    advice: str = ""


@dataclass(frozen=True, slots=True)
class Isolation:
    """How a run was confined (grader.run.confine.isolate): its level, the mechanism, and in words;
    and which of its limits held per process only, where it had no cgroup for them
    (grader.run.confine.cgroups)."""

    level: Literal["full", "namespaces", "landlock", "none"]
    mode: str
    description: str
    #: "memory", "processes": counted per process (or per user), not for all of the run's processes
    #: together
    weaker_limits: tuple[str, ...] = ()


#: how many gradient numbers one probe's evidence holds at most
MAX_PRODUCED = 20_000


@dataclass(frozen=True, slots=True)
class Evidence:
    """What torch's autograd did while one probe ran (grader.run.child.evidence)."""

    #: times the submission's own code started the engine (backward, autograd.grad)
    runs: int
    #: the probe's inputs whose .grad was not what the engine accumulated (set by hand, or changed
    #: after)
    not_from_engine: tuple[str, ...] = ()
    #: forbidden torch operators that ran
    forbidden_ops: tuple[str, ...] = ()
    #: every number the engine produced as a gradient (leaves' .grad after each backward,
    #: autograd.grad's)
    produced: tuple[float, ...] = ()
    #: gradients that reached an input while the recorded engine was not running (an engine out of
    #: its sight)
    unseen_runs: int = 0
    #: whether `Variable._execution_engine` was no longer the recorded one when the probe ended
    engine_replaced: bool = False
    #: where the submission's code first held a complex number during the probe ("in f(), line 3");
    #: "" if nowhere
    complex_at: str = ""
    #: messages to the record that only the submission could have sent (grader.run.child.evidence):
    #: ignored
    tampered: int = 0


@dataclass(frozen=True, slots=True)
class ProbeRun:
    """What one probe did in the child: its observations, or the error that stopped it."""

    observations: Mapping[str, Value] | None
    error: ErrorInfo | None
    evidence: Evidence | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupRun:
    """One exercise's part of a run."""

    #: names the exercise needs that the submission lacks, in words
    missing: tuple[str, ...]
    #: by the exercise's probe index; None where the probe did not finish or was not meant for this
    #: device
    probes: tuple[ProbeRun | None, ...]
    #: the probe that was running when the run stopped
    stopped_at: int | None
    #: why this exercise's probes stopped, where they did (the exercises after it get a fresh child)
    stop: Stop | None = None
    #: the names each probe needs that are missing, by probe index (partial credit by name)
    needs: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """What one child did with the submission: its cells, then each exercise's probes."""

    kind: Literal["python", "notebook", "package"]
    #: every cell ran (a .py file), or every cell was tried (a notebook goes on past failing cells)
    loaded: bool
    #: exceptions raised by the cells; each error's `where.file` names the cell
    cell_errors: tuple[ErrorInfo, ...]
    #: why the child stopped before it had loaded the submission (probes' stops are their group's)
    stop: Stop | None
    #: the cell that was running when it stopped (None if it stopped in a probe, or finished)
    stopped_in_cell: str | None
    groups: tuple[GroupRun, ...]
    output: str
    output_truncated: bool
    seconds: float
    isolation: Isolation | None = None
    #: imports the guard refused, as "torch (student.py:3)"
    refused_imports: tuple[str, ...] = ()
    #: what the guard refused as tampering with the grader, as "used gc.get_objects()
    #: (student.py:9)"
    integrity: tuple[str, ...] = ()

    @property
    def stopped(self) -> str | None:
        """Why the run stopped early, in words: while loading, or in any exercise's probes."""
        stop = self.stop or next((g.stop for g in self.groups if g.stop is not None), None)
        return stop.text if stop is not None else None

    @property
    def advice(self) -> str:
        stop = self.stop or next((g.stop for g in self.groups if g.stop is not None), None)
        return stop.advice if stop is not None else ""

    @property
    def load_error(self) -> ErrorInfo | None:
        """The error that kept a .py file from loading; a notebook's failing cells are not fatal."""
        return self.cell_errors[0] if self.kind == "python" and self.cell_errors else None
