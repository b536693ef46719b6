"""Read a child's reply as untrusted data: every line signed, numbered and checked against what was
asked."""

from __future__ import annotations

import hmac
import json
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from grader.core.text import clean_data, may_hold_surrogates
from grader.core.values import BadReply, ErrorInfo, error_from_data, from_data
from grader.run.guard.guard import MAC_HEX
from grader.run.observed import (
    MAX_PRODUCED,
    Evidence,
    GroupRun,
    Isolation,
    ProbeRun,
    RunResult,
    Stop,
)
from grader.run.running import Exchange, Limits


@dataclass(frozen=True, slots=True)
class GroupPlan:
    """One group as the child was asked to run it."""

    #: the exercise's probe index of each probe sent
    indices: tuple[int, ...]
    #: how many probes the exercise has
    total: int
    #: for each probe sent, the names of the exercise it uses
    uses: tuple[tuple[str, ...], ...]
    #: seconds the group's probes may take, from the group's start
    budget: float


@dataclass(frozen=True, slots=True)
class Plan:
    """What the child was asked to do, to read its reply against."""

    kind: Literal["python", "notebook", "package"]
    cells: tuple[str, ...]
    groups: tuple[GroupPlan, ...]
    #: seconds loading the submission may take
    load_budget: float


def signed_lines(
    reply: bytes | bytearray, key: bytes, first: int = 0
) -> tuple[list[dict[str, Any]], str | None]:
    """The reply's complete lines as events, verified; and what was wrong with the first bad one, if
    any. `first`: the number of the reply's first line (a run's second part goes on from its
    first)."""
    events: list[dict[str, Any]] = []
    for number, line in enumerate(bytes(reply).split(b"\n")[:-1], start=1):
        mac, _, body = line.partition(b" ")
        expected = hmac.new(key, body, "sha256").hexdigest().encode()
        if len(mac) != MAC_HEX or not hmac.compare_digest(mac, expected):
            return events, f"line {number} is not the grader's"
        try:
            event = json.loads(body)
        except (ValueError, RecursionError):
            return events, f"line {number} is not JSON"
        # a message such as ValueError("\ud800"): text no format could write
        if may_hold_surrogates(body):
            event = clean_data(event)
        if type(event) is not dict or event.get("n") != first + len(events):
            return events, f"line {number} is out of sequence"
        events.append(event)
    return events, None


class Budget:
    """The run's deadline: loading gets its budget, then each exercise its own from its first
    line."""

    def __init__(
        self, plan: Plan, key: bytes, started: float, *, offset: int = 0, first: int = 0
    ) -> None:
        self.plan, self.key = plan, key
        self.deadline = started + plan.load_budget
        self._seen = 0
        #: where this part of the reply starts, in bytes and in lines (a run's second part: after
        #: its first)
        self._offset, self._first = offset, first

    def __call__(self, reply: bytes | bytearray, now: float) -> float:
        reply = bytes(reply)[self._offset :]
        count = reply.count(b'"event":"group"')
        # only signed lines may move it: the submission cannot buy itself time
        if count > self._seen:
            events, _ = signed_lines(reply, self.key, self._first)
            groups = [
                e["group"]
                for e in events
                if e.get("event") == "group" and type(e.get("group")) is int
            ]
            for group in groups[self._seen :]:
                if 0 <= group < len(self.plan.groups):
                    self.deadline = now + self.plan.groups[group].budget
            self._seen = len(groups)
        return self.deadline


#: what of a run's first part its second part is read with: how the submission loaded, nothing of
#: its checks
_LOADING = frozenset({"ready", "cell", "cell_error", "loaded"})


def interpret(
    exchange: Exchange, plan: Plan, key: bytes, limits: Limits, resume: int = 0
) -> RunResult:
    """Turn the raw reply into a `RunResult`, trusting nothing: every line is checked against the
    plan.

    `resume`: the reply's first `resume` lines were a first part, read on their own; this reads its
    second part, for `plan`, from the same loading (grader.run.sandbox.TwoPartRun)."""
    state = _State(plan)
    bad = _read(exchange.reply, key, state, resume)
    if state.crashed is not None and bad is None:
        bad = _crash(state)
    loading_failed = plan.kind == "python" and bool(state.cell_errors)
    done_loading = not state.loaded and loading_failed and bad is None
    clean = (state.finished or done_loading) and bad is None and not exchange.memory_exceeded
    stop = None
    if not clean:
        stop = bad or _why_stopped(exchange, limits, state, plan)
    groups = _group_runs(plan, state, stop)
    in_groups = any(group.stop is not None for group in groups)
    stopped_in_cell = None
    if stop is not None and not state.loaded and state.cell is not None:
        stopped_in_cell = plan.cells[state.cell]
    return RunResult(
        kind=plan.kind,
        loaded=state.loaded,
        cell_errors=tuple(state.cell_errors),
        stop=None if in_groups else stop,
        stopped_in_cell=stopped_in_cell,
        groups=groups,
        output=exchange.output.decode("utf-8", errors="replace"),
        output_truncated=exchange.output_truncated,
        seconds=exchange.seconds,
        isolation=_with_limits(state.isolation, exchange.weaker_limits),
        refused_imports=tuple(state.refused),
        integrity=tuple(state.integrity),
    )


def _read(reply: bytes, key: bytes, state: _State, resume: int) -> Stop | None:
    """Take the reply's signed lines into `state`, in order, up to the child's last word; what
    was wrong with the reply, if anything."""
    events, forged = signed_lines(reply, key)
    bad = None
    if forged:
        bad = Stop(
            "forged-reply",
            f"wrote to the grader's reply channel ({forged})",
            "Do not write to the grader's pipes.",
        )
    for number, event in enumerate(events):
        if number < resume:
            if event.get("event") in _LOADING:
                state.take(event)
            continue
        if state.finished or state.crashed is not None:
            break
        try:
            state.take(event)
        except BadReply as exc:
            line = event.get("n", 0) + 1
            return Stop(
                "forged-reply",
                f"sent a reply the grader could not read (line {line}: {exc})",
                "Do not write to the grader's pipes or fork processes.",
            )
        except KeyError as exc:
            return Stop("forged-reply", f"sent a malformed reply (missing {exc})", "")
    return bad


def _group_runs(plan: Plan, state: _State, stop: Stop | None) -> tuple[GroupRun, ...]:
    """Each group's records, by the exercise's probe index, and where the run stopped in it."""
    groups = []
    for g, planned in enumerate(plan.groups):
        sent = planned.indices
        by_index: list[ProbeRun | None] = [None] * planned.total
        needs: list[tuple[str, ...]] = [()] * planned.total
        for local, probe_run in enumerate(state.probes[g]):
            by_index[sent[local]] = probe_run
            uses = planned.uses[local]
            needs[sent[local]] = tuple(name for name in uses if name in state.absent[g])
        running = state.running
        here = stop is not None and running is not None and running[0] == g
        loading_it = stop is not None and state.group == g and state.loaded
        groups.append(
            GroupRun(
                missing=state.missing[g],
                probes=tuple(by_index),
                stopped_at=sent[running[1]] if here and running is not None else None,
                stop=stop if here or loading_it else None,
                needs=tuple(needs),
            )
        )
    return tuple(groups)


class _State:
    """The reply read so far, one event at a time, in the order the protocol allows."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.cell_errors: list[ErrorInfo] = []
        self.loaded = self.finished = self.student = False
        self.cell: int | None = None
        self.group: int | None = None
        self.missing: list[tuple[str, ...]] = [() for _ in plan.groups]
        self.absent: list[set[str]] = [set() for _ in plan.groups]
        self.probes: list[list[ProbeRun | None]] = [[None] * len(g.indices) for g in plan.groups]
        self.running: tuple[int, int] | None = None
        self.isolation: Isolation | None = None
        self.refused: list[str] = []
        self.integrity: list[str] = []
        self.crashed: ErrorInfo | None = None

    def take(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        plan = self.plan
        if kind == "ready" and self.isolation is None and event["n"] == 0:
            level, mode = _text(event["level"]), _text(event["mode"])
            words = _text(event["isolation"])
            self.isolation = Isolation(level, mode, words)  # type: ignore[arg-type]
        elif kind in ("import_refused", "integrity"):
            text = f"{_text(event['what'])[:200]}"
            if event["where"]:
                text += f" ({_text(event['where'])[:100]})"
            (self.refused if kind == "import_refused" else self.integrity).append(text)
        elif kind == "cell" and not self.loaded and _index(event["cell"], len(plan.cells)):
            self.cell = event["cell"]
        elif kind == "cell_error" and not self.loaded and event["cell"] == self.cell:
            self.cell_errors.append(error_from_data(event["error"]))
        elif kind == "loaded" and not self.loaded:
            self.loaded, self.cell = True, None
        elif (
            kind == "group"
            and self.loaded
            and _index(event["group"], len(plan.groups))
            and (self.group is None or event["group"] > self.group)
        ):
            self.group, self.running = event["group"], None
            names = event["missing"]
            if type(names) is not list or len(names) > 100:
                raise BadReply("malformed list of missing names")
            self.missing[self.group] = tuple(_missing_text(item) for item in names)
            self.absent[self.group] = {str(item["name"]) for item in names}
        elif (
            kind == "start"
            and self.group is not None
            and event["group"] == self.group
            and _index(event["probe"], len(plan.groups[self.group].indices))
        ):
            self.running = (self.group, event["probe"])
        elif (
            kind == "probe"
            and self.running == (event["group"], event["probe"])
            and self.probes[event["group"]][event["probe"]] is None
        ):
            self.probes[event["group"]][event["probe"]] = _probe_run(event)
            self.running = None
        elif kind == "done" and self.loaded:
            self.finished = True
        elif kind == "crashed":
            self.crashed = error_from_data(event["error"])
        else:
            raise BadReply(f"a {kind} event out of order")


def _crash(state: _State) -> Stop:
    """The child's harness failed. Before the submission's first line that is the grader's failure;
    once its code has run, the process is the submission's (it can rebind anything in it, and what
    the harness reads, a value's `__repr__` or an exception's `__str__`, may raise anything,
    SystemExit too): its own outcome."""
    assert state.crashed is not None
    if state.cell is None and not state.loaded:
        return Stop(
            "grader",
            f"ran into a failure of the grader's own code ({state.crashed.describe()})",
            "This is not your fault: tell your instructor.",
        )
    return Stop(
        "unknown",
        f"stopped the run while the grader read what it gave ({state.crashed.describe()})",
        "An object of yours raised while it was read (its __repr__, __str__, or an exception's "
        "message): return plain numbers, and raise exceptions whose str() works.",
    )


def _with_limits(isolation: Isolation | None, weaker: tuple[str, ...]) -> Isolation | None:
    """The run's isolation as the zygote told it, with what the grading process knows of its
    limits."""
    if isolation is None:
        return None
    held = [name for name in ("memory", "processes") if name not in weaker]
    words = []
    if held:
        words.append(
            f"{' and '.join(held)} counted for the run as a whole (cgroups holding it "
            "and its zygote alone)"
        )
    if "memory" in weaker:
        words.append(
            "memory limited per process only (no memory cgroup here: a run's processes "
            "together may hold more than the limit)"
        )
    if "processes" in weaker:
        words.append("processes counted per user (no pids cgroup here)")
    description = "; ".join([isolation.description, *words])
    return replace(isolation, description=description, weaker_limits=weaker)


def _why_stopped(exchange: Exchange, limits: Limits, state: _State, plan: Plan) -> Stop:
    """What ended the run early, and what the student might do about it."""
    if exchange.memory_exceeded:
        return Stop(
            "memory",
            f"was stopped: it and the processes it started used more than its memory limit "
            f"({limits.memory_mb} MB) together",
            "Each process you start (os.fork, multiprocessing) counts toward the same limit: "
            "start fewer, or keep less in each.",
        )
    if exchange.reply_overflow:
        return Stop(
            "reply-size",
            f"sent more than {limits.reply_bytes // (1024 * 1024)} MiB of results",
            "Return numbers, not huge structures.",
        )
    if state.cell is None and not state.loaded:  # it never got to the submission's first line
        return Stop(
            "grader",
            "could not be run: the grader's process ended before your code started",
            "This is not your fault: tell your instructor.",
        )
    if exchange.timed_out:
        budget = plan.load_budget
        if state.group is not None:
            budget = plan.groups[state.group].budget
        return Stop(
            "timeout",
            f"did not finish within {budget:g} s (the time limit)",
            "Look for an infinite loop or very slow code.",
        )
    if exchange.status is None:
        return Stop("unknown", "ended, and the grader could not learn how")
    if os.WIFSIGNALED(exchange.status):
        return _killed(os.WTERMSIG(exchange.status), limits)
    code = os.WEXITSTATUS(exchange.status)
    return Stop(
        "exit",
        f"ended the process with exit code {code}",
        "Remove os._exit(), or whatever ends the process; return values instead.",
    )


def _killed(number: int, limits: Limits) -> Stop:
    """The run, ended by signal `number`."""
    if number == signal.SIGXCPU:
        return Stop(
            "cpu",
            "was stopped by SIGXCPU",
            f"It used more than its CPU time ({limits.cpu_seconds} s).",
        )
    if number == signal.SIGKILL:
        return Stop(
            "signal",
            "was killed (SIGKILL)",
            "Out of memory, past its CPU time, or it killed itself (os.kill, os.killpg): look "
            "for what allocates without end, or for signals.",
        )
    name = f"signal {number}"
    if number in signal.Signals._value2member_map_:
        name = signal.Signals(number).name
    return Stop(
        "signal",
        f"crashed (killed by {name})",
        "A crash in C code: look at what calls into extensions or ctypes.",
    )


def _probe_run(event: dict[str, Any]) -> ProbeRun:
    keys = set(event) - {"event", "group", "probe", "n", "evidence"}
    evidence = _evidence(event["evidence"]) if "evidence" in event else None
    if keys == {"error"}:
        return ProbeRun(None, error_from_data(event["error"]), evidence)
    if keys != {"observations"}:
        raise BadReply("malformed probe result")
    observations = event["observations"]
    if type(observations) is not dict or not all(type(k) is str for k in observations):
        raise BadReply("observations are not a mapping")
    return ProbeRun(
        {label: from_data(value) for label, value in observations.items()}, None, evidence
    )


def _evidence(data: object) -> Evidence:
    if (
        type(data) is not dict
        or set(data)
        != {
            "runs",
            "probe_runs",
            "not_from_engine",
            "forbidden_ops",
            "produced",
            "unseen_runs",
            "engine_replaced",
            "complex",
            "tampered",
        }
        or type(data["tampered"]) is not int
        or type(data["complex"]) is not str
        or type(data["runs"]) is not int
        or type(data["unseen_runs"]) is not int
        or type(data["engine_replaced"]) is not bool
        or not all(
            type(v) is list and len(v) <= 100
            for v in (data["not_from_engine"], data["forbidden_ops"])
        )
        or type(data["produced"]) is not list
        or len(data["produced"]) > MAX_PRODUCED
        or not all(type(v) is float for v in data["produced"])
    ):
        raise BadReply("malformed evidence")
    return Evidence(
        data["runs"],
        tuple(_text(v)[:80] for v in data["not_from_engine"]),
        tuple(_text(v)[:80] for v in data["forbidden_ops"]),
        tuple(data["produced"]),
        unseen_runs=data["unseen_runs"],
        engine_replaced=data["engine_replaced"],
        complex_at=data["complex"][:120],
        tampered=data["tampered"],
    )


def _missing_text(item: object) -> str:
    if (
        type(item) is not dict
        or set(item) != {"name", "kind", "got"}
        or not all(type(v) is str for v in item.values())
    ):
        raise BadReply("malformed missing name")
    article = "an" if item["kind"][:1] in "aeiou" else "a"
    return f"`{item['name'][:80]}` ({article} {item['kind'][:20]}): found {item['got'][:120]}"


def _index(value: object, size: int) -> bool:
    if type(value) is not int or not 0 <= value < size:
        raise BadReply("index out of range")
    return True


def _text(value: object) -> str:
    if type(value) is not str:
        raise BadReply("text is not a string")
    return value


__all__: Sequence[str] = ("Budget", "GroupPlan", "Plan", "interpret", "signed_lines")
