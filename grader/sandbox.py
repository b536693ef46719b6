"""Run a submission's probes in a sandboxed child and read back what happened, as untrusted data."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from grader import child
from grader.inputs import Inputs, input_to_data, probe_seed
from grader.load import Submission
from grader.spec import Device, Exercise
from grader.values import BadReply, ErrorInfo, Value, error_from_data, from_data
from grader.zygote import Exchange, Limits, Running, Zygote


@dataclass(frozen=True, slots=True)
class ProbeRun:
    """What one probe did in the child: its observations, or the error that stopped it."""

    observations: Mapping[str, Value] | None
    error: ErrorInfo | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    #: the submission could not be loaded (syntax error, exception at import, sys.exit...)
    load_error: ErrorInfo | None
    #: names the exercise needs that the submission lacks, in words
    missing: tuple[str, ...]
    #: one entry per probe; None where the probe never finished
    probes: tuple[ProbeRun | None, ...]
    #: why the child stopped before finishing, in words; None if it finished
    stopped: str | None
    #: what the student might do about it
    advice: str
    #: the probe that was running when it stopped
    stopped_at: int | None
    output: str
    output_truncated: bool
    seconds: float


#: seconds a CUDA run gets on top of the time limit, for the child to start CUDA
CUDA_STARTUP_SECONDS = 15.0


class Sandbox:
    """Owns the warm zygote; start it before any expected value is computed (see `grader.zygote`)."""

    def __init__(self, *, fresh_interpreter: bool | None = None) -> None:
        self._zygote = Zygote(child.serve, warm_up)
        self._fresh = fresh_interpreter

    def __enter__(self) -> Sandbox:
        self._zygote.start(fresh_interpreter=self._fresh)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._zygote.close()

    def launch(self, submission: Submission, exercise: Exercise, inputs: tuple[Inputs, ...], *, seed: int = 0,
               device: Device = "cpu", time_limit: float | None = None) -> PendingRun:
        """Start a child on `submission`, running the probes meant for `device`; it works while the caller
        computes expected values."""
        indices = tuple(i for i, probe in enumerate(exercise.probes) if device in probe.devices)
        request = json.dumps({
            "filename": submission.name,
            "source": submission.source,
            "engine": exercise.engine,
            "device": device,
            "defines": dict(exercise.defines),
            "forbid_imports": list(exercise.source.forbid_imports),
            "probes": [
                {"name": exercise.probes[i].name, "code": exercise.probes[i].code,
                 "observe": list(exercise.probes[i].observe),
                 "inputs": {name: input_to_data(value) for name, value in inputs[i].items()},
                 "torch_seed": probe_seed(seed, exercise.id, exercise.probes[i].name)}
                for i in indices
            ],
        }).encode()
        wall = time_limit or exercise.time_limit
        # CUDA maps far more address space than it uses, so only the wall clock and CPU time bound it.
        limits = Limits(wall_seconds=wall + CUDA_STARTUP_SECONDS, memory_mb=0) if device == "cuda" \
            else Limits(wall_seconds=wall, memory_mb=exercise.memory_mb)
        workdir = tempfile.mkdtemp(prefix="grade-")
        return PendingRun(self._zygote.launch(request, limits, workdir), limits, workdir, indices,
                          len(exercise.probes))


class PendingRun:
    def __init__(self, running: Running, limits: Limits, workdir: str, indices: tuple[int, ...], total: int) -> None:
        self._running, self._limits, self._workdir = running, limits, workdir
        self._indices, self._total = indices, total

    def result(self) -> RunResult:
        try:
            exchange = self._running.wait()
        finally:
            shutil.rmtree(self._workdir, ignore_errors=True)
        return interpret(exchange, self._indices, self._total, self._limits)


def warm_up() -> None:
    """Import what every child needs once, and make torch fork-safe: one thread, set before any fork."""
    import numpy  # noqa: F401
    import torch

    import reference  # noqa: F401

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work has started: either way it is not ours to change
        pass


def interpret(exchange: Exchange, indices: tuple[int, ...], total: int, limits: Limits) -> RunResult:
    """Turn the raw reply into a `RunResult`, trusting nothing: every line is checked.

    The child numbers its probes 0..len(indices)-1; `indices` maps them back to the exercise's.
    """
    n_probes = len(indices)
    load_error: ErrorInfo | None = None
    missing: tuple[str, ...] = ()
    probes: list[ProbeRun | None] = [None] * n_probes
    running: int | None = None
    finished = False
    bad: str | None = None
    for number, line in enumerate(exchange.reply.split(b"\n"), start=1):
        if not line or finished:
            continue
        try:
            event = _event(line, n_probes)
        except BadReply as exc:
            bad = f"sent a reply the grader could not read (line {number}: {exc})"
            break
        kind = event["event"]
        if kind == "load_error":
            load_error, finished = error_from_data(event["error"]), True
        elif kind == "missing":
            missing, finished = tuple(_missing_text(item) for item in event["names"]), True
        elif kind == "crashed":
            bad = f"the grader's code in the child failed: {error_from_data(event['error']).describe()}"
            break
        elif kind == "start":
            running = event["probe"]
        elif kind == "probe":
            index = event["probe"]
            if index != running or probes[index] is not None:
                bad = f"sent results out of order (line {number})"
                break
            probes[index] = _probe_run(event)
            running = None
        elif kind == "done":
            finished = True
    stopped, advice = (None, "") if finished and bad is None else _why_stopped(exchange, limits, bad)
    by_index: list[ProbeRun | None] = [None] * total
    for local, probe_run in enumerate(probes):
        by_index[indices[local]] = probe_run
    return RunResult(
        load_error=load_error,
        missing=missing,
        probes=tuple(by_index),
        stopped=stopped,
        advice=advice,
        stopped_at=indices[running] if stopped and running is not None else None,
        output=exchange.output.decode("utf-8", errors="replace"),
        output_truncated=exchange.output_truncated,
        seconds=exchange.seconds,
    )


_EVENT_KEYS = {
    "loaded": {"event"},
    "done": {"event"},
    "start": {"event", "probe"},
    "load_error": {"event", "error"},
    "missing": {"event", "names"},
    "crashed": {"event", "error"},
}


def _event(line: bytes, n_probes: int) -> dict[str, Any]:
    try:
        event = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise BadReply("not JSON") from exc
    if type(event) is not dict or event.get("event") not in (*_EVENT_KEYS, "probe"):
        raise BadReply("not an event the protocol knows")
    kind = event["event"]
    keys = set(event)
    if kind == "probe":
        if keys not in ({"event", "probe", "observations"}, {"event", "probe", "error"}):
            raise BadReply("malformed probe result")
    elif keys != _EVENT_KEYS[kind]:
        raise BadReply(f"malformed {kind} event")
    if "probe" in event and (type(event["probe"]) is not int or not 0 <= event["probe"] < n_probes):
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
        if number in (signal.SIGXCPU, signal.SIGKILL):
            return (f"was stopped by {signal.Signals(number).name}",
                    f"It used more than its CPU time ({limits.cpu_seconds} s) or memory ({limits.memory_mb} MB).")
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
        return f"crashed (killed by {name})", "A crash in C code: look at what calls into extensions or ctypes."
    code = os.WEXITSTATUS(exchange.status)
    return (f"ended the process with exit code {code}",
            "Remove os._exit(), or whatever ends the process; return values instead.")
