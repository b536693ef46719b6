"""Run a submission's probes in a sandboxed child and read back what happened, as untrusted data."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from grader import child, isolate
from grader.inputs import Inputs, input_to_data, probe_seed
from grader.load import Submission
from grader.observed import GroupRun, ProbeRun, RunResult
from grader.spec import Device, Exercise
from grader.values import BadReply, ErrorInfo, error_from_data, from_data
from grader.warm import warm_lean, warm_numpy, warm_up
from grader.zygote import Exchange, Limits, Running, Zygote


@dataclass(frozen=True, slots=True)
class Group:
    """An exercise to grade in a run, with its probes' inputs."""

    exercise: Exercise
    inputs: tuple[Inputs, ...]
    seed: int


#: seconds a CUDA run gets on top of the time limit, for the child to start CUDA
CUDA_STARTUP_SECONDS = 15.0


class Sandbox:
    """Owns the warm zygotes; start it before any expected value is computed (see `grader.zygote`).

    Two zygotes, each a fresh interpreter that holds none of this process's memory: one with torch
    loaded and, for exercises that forbid torch, a lean one that never imports it, so that torch is
    not in such a child's memory at all. Each starts when first needed (or on entry, for the kind
    `lean` says comes first) and warms up while this process computes expected values. `slot` picks
    the child's user as root (one per concurrent worker); `hide` lists folders a child must not see
    (exercises with their solutions, other students' work).
    """

    def __init__(self, *, lean: bool = False, slot: int = 0, hide: Sequence[Path] = (), numpy: bool = False) -> None:
        self._zygote = Zygote(child.serve, warm_up)
        self._lean_zygote = Zygote(child.serve, warm_lean)
        # Tensor exercises (issue 17): lean too, with numpy warm; until issue 11's allowlists choose the zygote.
        self._numpy_zygote = Zygote(child.serve, warm_numpy)
        self._lean, self._numpy = lean, numpy
        self._uid = isolate.sandbox_uid(slot) if os.geteuid() == 0 else None
        self._hide = tuple(str(Path(p).resolve()) for p in hide)

    def __enter__(self) -> Sandbox:
        isolate.protect_grader()
        first = self._zygote if not self._lean else self._numpy_zygote if self._numpy else self._lean_zygote
        first.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._zygote.close()
        self._lean_zygote.close()
        self._numpy_zygote.close()

    def _zygote_for(self, exercises: Sequence[Exercise]) -> Zygote:
        zygote = self._numpy_zygote if runs_numpy(exercises) else self._lean_zygote if runs_lean(exercises) \
            else self._zygote
        if not zygote.started:
            zygote.start()
        return zygote

    def launch(self, submission: Submission, groups: Sequence[Group], *, device: Device = "cpu",
               time_limit: float | None = None) -> PendingRun:
        """Start a child that runs `submission` once, then the probes of each group meant for `device`.

        It works while the caller computes expected values.
        """
        indices = [tuple(i for i, probe in enumerate(g.exercise.probes) if device in probe.devices) for g in groups]
        exercises = [g.exercise for g in groups]
        # One exercise's rules block its forbidden modules in the child; a notebook that answers several
        # exercises may use them elsewhere, so there the syntax tree alone is checked (grader.rules).
        forbidden = exercises[0].source.forbid_imports if len(exercises) == 1 else ()
        request = json.dumps({
            "filename": submission.name,
            "cells": [{"label": cell.label, "source": cell.source} for cell in submission.cells],
            "keep_going": submission.kind == "notebook",
            "device": device,
            "forbid_imports": list(forbidden),
            "groups": [
                {"engine": g.exercise.engine, "defines": dict(g.exercise.defines),
                 "probes": [_probe_request(g, i) for i in group_indices]}
                for g, group_indices in zip(groups, indices, strict=True)
            ],
        }).encode()
        wall = time_limit or sum(e.time_limit for e in exercises)
        # CUDA maps far more address space than it uses, so only the wall clock and CPU time bound it.
        limits = Limits(wall_seconds=wall + CUDA_STARTUP_SECONDS, memory_mb=0) if device == "cuda" \
            else Limits(wall_seconds=wall, memory_mb=max(e.memory_mb for e in exercises))
        workdir = tempfile.mkdtemp(prefix="grade-")
        plan = _Plan(submission.kind, tuple(c.label for c in submission.cells), tuple(indices),
                     tuple(len(e.probes) for e in exercises))
        running = self._zygote_for(exercises).launch(request, limits, workdir, hide=self._hide, uid=self._uid,
                                                     done=child.DONE)
        return PendingRun(running, limits, workdir, plan)


def _probe_request(group: Group, index: int) -> dict[str, object]:
    probe = group.exercise.probes[index]
    return {"name": probe.name, "code": probe.code, "observe": list(probe.observe),
            "inputs": {name: input_to_data(value) for name, value in group.inputs[index].items()},
            "torch_seed": probe_seed(group.seed, group.exercise.id, probe.name)}


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the child was asked to do, to read its reply against."""

    kind: Literal["python", "notebook"]
    cells: tuple[str, ...]
    #: per group, the exercise's probe index of each probe sent
    indices: tuple[tuple[int, ...], ...]
    #: per group, how many probes the exercise has
    totals: tuple[int, ...]


class PendingRun:
    def __init__(self, running: Running, limits: Limits, workdir: str, plan: _Plan) -> None:
        self._running, self._limits, self._workdir, self._plan = running, limits, workdir, plan

    def result(self) -> RunResult:
        try:
            exchange = self._running.wait()
        finally:
            shutil.rmtree(self._workdir, ignore_errors=True)
        return interpret(exchange, self._plan, self._limits)


def runs_lean(exercises: Sequence[Exercise]) -> bool:
    """Whether these exercises run in a lean zygote: all of them forbid torch, or are tensor exercises (numpy only)."""
    return bool(exercises) and all("torch" in e.source.forbid_imports or e.engine == "tensor" for e in exercises)


def runs_numpy(exercises: Sequence[Exercise]) -> bool:
    """Whether they run in the lean zygote that has numpy warm: lean, and one of them a tensor exercise."""
    return runs_lean(exercises) and any(e.engine == "tensor" for e in exercises)


def interpret(exchange: Exchange, plan: _Plan, limits: Limits) -> RunResult:
    """Turn the raw reply into a `RunResult`, trusting nothing: every line is checked against the plan."""
    cell_errors: list[ErrorInfo] = []
    loaded = finished = False
    current_cell: int | None = None
    missing: list[tuple[str, ...]] = [() for _ in plan.indices]
    probes: list[list[ProbeRun | None]] = [[None] * len(sent) for sent in plan.indices]
    running: tuple[int, int] | None = None
    bad: str | None = None
    for number, line in enumerate(exchange.reply.split(b"\n"), start=1):
        if not line or finished:
            continue
        try:
            event = _event(line, plan)
            kind = event["event"]
            if kind == "cell" and not loaded:
                current_cell = event["cell"]
            elif kind == "cell_error" and not loaded and event["cell"] == current_cell:
                cell_errors.append(error_from_data(event["error"]))
            elif kind == "loaded" and not loaded:
                loaded, current_cell = True, None
            elif kind == "missing" and loaded:
                missing[event["group"]] = tuple(_missing_text(item) for item in event["names"])
            elif kind == "start" and loaded:
                running = (event["group"], event["probe"])
            elif kind == "probe" and running == (event["group"], event["probe"]) \
                    and probes[event["group"]][event["probe"]] is None:
                probes[event["group"]][event["probe"]] = _probe_run(event)
                running = None
            elif kind == "done" and loaded:
                finished = True
            elif kind == "crashed":
                bad = f"the grader's code in the child failed: {error_from_data(event['error']).describe()}"
                break
            else:
                raise BadReply(f"a {kind} event out of order")
        except BadReply as exc:
            bad = f"sent a reply the grader could not read (line {number}: {exc})"
            break
    done_loading = not loaded and plan.kind == "python" and bool(cell_errors) and bad is None
    stopped, advice = (None, "") if (finished or done_loading) and bad is None \
        else _why_stopped(exchange, limits, bad)
    groups = []
    for g, sent in enumerate(plan.indices):
        by_index: list[ProbeRun | None] = [None] * plan.totals[g]
        for local, probe_run in enumerate(probes[g]):
            by_index[sent[local]] = probe_run
        stopped_at = sent[running[1]] if stopped and running is not None and running[0] == g else None
        groups.append(GroupRun(missing=missing[g], probes=tuple(by_index), stopped_at=stopped_at))
    return RunResult(
        kind=plan.kind,
        loaded=loaded,
        cell_errors=tuple(cell_errors),
        stopped=stopped,
        advice=advice,
        stopped_in_cell=plan.cells[current_cell] if stopped and current_cell is not None else None,
        groups=tuple(groups),
        output=exchange.output.decode("utf-8", errors="replace"),
        output_truncated=exchange.output_truncated,
        seconds=exchange.seconds,
    )


_EVENT_KEYS = {
    "cell": {"event", "cell"},
    "cell_error": {"event", "cell", "error"},
    "loaded": {"event"},
    "missing": {"event", "group", "names"},
    "start": {"event", "group", "probe"},
    "done": {"event"},
    "crashed": {"event", "error"},
}


def _event(line: bytes, plan: _Plan) -> dict[str, Any]:
    try:
        event = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise BadReply("not JSON") from exc
    if type(event) is not dict or event.get("event") not in (*_EVENT_KEYS, "probe"):
        raise BadReply("not an event the protocol knows")
    kind = event["event"]
    keys = set(event)
    if kind == "probe":
        if keys not in ({"event", "group", "probe", "observations"}, {"event", "group", "probe", "error"}):
            raise BadReply("malformed probe result")
    elif keys != _EVENT_KEYS[kind]:
        raise BadReply(f"malformed {kind} event")
    if "cell" in event and (type(event["cell"]) is not int or not 0 <= event["cell"] < len(plan.cells)):
        raise BadReply("cell index out of range")
    if "group" in event and (type(event["group"]) is not int or not 0 <= event["group"] < len(plan.indices)):
        raise BadReply("group index out of range")
    if "probe" in event and (type(event["probe"]) is not int
                             or not 0 <= event["probe"] < len(plan.indices[event["group"]])):
        raise BadReply("probe index out of range")
    if kind == "missing" and (type(event["names"]) is not list or len(event["names"]) > 100):
        raise BadReply("malformed list of missing names")
    return event


def _probe_run(event: dict[str, Any]) -> ProbeRun:
    if "error" in event:
        return ProbeRun(None, error_from_data(event["error"]))
    observations = event["observations"]
    if type(observations) is not dict or not all(type(k) is str for k in observations):
        raise BadReply("observations are not a mapping")
    return ProbeRun({label: from_data(value) for label, value in observations.items()}, None)


def _missing_text(item: object) -> str:
    if type(item) is not dict or set(item) != {"name", "kind", "got"} \
            or not all(type(v) is str for v in item.values()):
        raise BadReply("malformed missing name")
    article = "an" if item["kind"][:1] in "aeiou" else "a"
    return f"`{item['name'][:80]}` ({article} {item['kind'][:20]}): found {item['got'][:120]}"


def _why_stopped(exchange: Exchange, limits: Limits, bad: str | None) -> tuple[str, str]:
    """What ended the run early, and what the student might do about it."""
    if exchange.reply_overflow:
        return (f"sent more than {limits.reply_bytes // (1024 * 1024)} MiB of results",
                "Return numbers, not huge structures.")
    if bad is not None:
        return bad, "Do not write to the grader's pipes or fork processes."
    if exchange.timed_out:
        return (f"did not finish within {limits.wall_seconds:g} s (the time limit)",
                "Look for an infinite loop or very slow code.")
    if exchange.status is None:
        return "ended, and the grader could not learn how", ""
    if os.WIFSIGNALED(exchange.status):
        number = os.WTERMSIG(exchange.status)
        if number == signal.SIGXCPU:
            return "was stopped by SIGXCPU", f"It used more than its CPU time ({limits.cpu_seconds} s)."
        if number == signal.SIGKILL:
            return ("was killed (SIGKILL)", "Out of memory, past its CPU time, or it killed itself (os.kill, "
                    "os.killpg): look for what allocates without end, or for signals.")
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
        return f"crashed (killed by {name})", "A crash in C code: look at what calls into extensions or ctypes."
    code = os.WEXITSTATUS(exchange.status)
    return (f"ended the process with exit code {code}",
            "Remove os._exit(), or whatever ends the process; return values instead.")
