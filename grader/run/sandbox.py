"""Run a submission's probes in sandboxed children and read back what happened, as untrusted data."""

from __future__ import annotations

import dataclasses
import functools
import hmac
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from grader.core.errors import GraderError
from grader.core.exercise import Device, Exercise, Visibility
from grader.run.confine import isolate
from grader.run.inputs import Inputs
from grader.run.observed import RunResult
from grader.run.policy import ImportPolicy, engine_policy, torch_policy
from grader.run.probe_request import graph_request, import_paths, probe_request, uses
from grader.run.read.load import Submission
from grader.run.reply import Budget, Plan, interpret
from grader.run.running import Deadline, Exchange, Limits, Running
from grader.run.zygote import Zygote, ZygoteFailed

#: seconds a CUDA run gets on top of the time limit, for the child to start CUDA
CUDA_STARTUP_SECONDS = 15.0


@dataclass(frozen=True, slots=True)
class Group:
    """An exercise to grade in a run, with its probes' inputs."""

    exercise: Exercise
    inputs: tuple[Inputs, ...]
    seed: int


class IsolationRefused(GraderError):
    """The machine cannot confine submissions as well as asked, and nothing accepted the risk."""


def probes_to_run(exercise: Exercise, device: Device, visibility: Visibility | None = None) -> tuple[int, ...]:
    """The probes a run of `exercise` on `device` makes, in order: all of them; the public ones alone; or for
    the hidden checks' own run, every probe up to the last hidden one, so that the hidden checks meet the state
    the public ones leave (weights kept between calls, a gradient that piles up) as they would in one run.
    Of that run only the hidden probes' records are read (grader.judge.hidden_runs)."""
    on = [i for i, probe in enumerate(exercise.probes) if device in probe.devices]
    if visibility == "public":
        return tuple(i for i in on if exercise.probes[i].visibility == "public")
    if visibility == "hidden":
        last = max((i for i in on if exercise.probes[i].visibility == "hidden"), default=-1)
        return tuple(i for i in on if i <= last)
    return tuple(on)


def policy_of(exercise: Exercise) -> ImportPolicy:
    """What a submission to `exercise` may import (grader.run.policy)."""
    rules = exercise.source
    if exercise.uses_torch:
        return torch_policy(rules.forbid_imports)
    return engine_policy(rules.allow_imports, rules.forbid_imports)


class Sandbox:
    """Owns the warm zygotes, one per import policy; start it before any expected value is computed.

    Each zygote is a fresh interpreter that holds none of this process's memory, confined as well as
    this machine allows (grader.run.confine.isolate): a torch one, and one per set of allowed packages for engine
    exercises, which never import torch (nor ctypes). `minimum`: the weakest isolation to accept;
    below it, entering the sandbox raises `IsolationRefused` (exit 2) before any submission runs.
    `hide`: folders a child must not see even where they lie inside one it needs.
    """

    def __init__(self, *, lean: bool = False, hide: Sequence[Path] = (), minimum: isolate.Level = "none",
                 mode: isolate.Mode | None = None, first: ImportPolicy | None = None) -> None:
        self._hide = tuple(str(Path(p).resolve()) for p in hide)
        self._zygotes: dict[str, Zygote] = {}
        #: the zygote started on entry, to warm up while the grading process works: `first`'s, or by `lean`
        self._first = first or (engine_policy() if lean else torch_policy())
        self.minimum = minimum
        #: how children are confined: the strongest mode this machine allows, unless one is given (tests)
        self.mode = mode or isolate.best_mode()

    def __enter__(self) -> Sandbox:
        if not isolate.at_least(self.mode.level, self.minimum):
            raise IsolationRefused(refusal(self.mode, self.minimum))
        isolate.protect_grader()
        self._zygote_for(self._first)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        for zygote in self._zygotes.values():
            zygote.close()
        self._zygotes.clear()

    def warming(self) -> bool:
        """Whether a zygote is still warming up: the first child waits for it, so work done first is free."""
        return any(not zygote.ready() for zygote in self._zygotes.values())

    def _zygote_for(self, policy: ImportPolicy) -> Zygote:
        zygote = self._zygotes.get(policy.key)
        if zygote is None:
            zygote = Zygote(policy, self.mode, hide=self._hide)
            try:
                zygote.start()
            except ZygoteFailed as exc:
                raise GraderError(f"the sandbox could not be set up here: {exc}. Run with --isolation none to "
                                  f"grade without it (see docs/security.md).") from None
            self._zygotes[policy.key] = zygote
        return zygote

    def launch(self, submission: Submission, groups: Sequence[Group], *, device: Device = "cpu",
               time_limit: float | None = None, visibility: Visibility | None = None) -> PendingRun:
        """Start one child that runs `submission` once, then the probes of each group meant for `device`
        (and of `visibility`, where given: a hidden check runs apart, grader.judge.hidden_runs).

        Every group must allow the same imports (`run` splits them). It works while the caller computes
        expected values.
        """
        key = secrets.token_bytes(32)
        policy, request, plan, limits = self._request(submission, groups, device, time_limit, visibility)
        running = self._zygote_for(policy).launch(key + frame(request), limits, finished=functools.partial(
            _finished, key), deadline=_Deadline(plan, key))
        return PendingRun(running, limits, plan, key)

    def launch_then(self, submission: Submission, groups: Sequence[Group], *, then: Then, device: Device = "cpu",
                    time_limit: float | None = None) -> PendingPair:
        """Like `launch` of the groups' public checks; and then, in the same child, once all it said of them has
        been taken (its output too), the hidden checks of the groups that `then` picks from that run's result.

        The child has the hidden checks' inputs only once nothing it does can reach the public run's result:
        of what it says from then on only the hidden checks' records are read, and its output is dropped
        (grader.run.running.Running). The hidden checks meet the state the public ones left, as in one run.
        """
        key = secrets.token_bytes(32)
        policy, request, plan, limits = self._request(submission, groups, device, time_limit, "public", then=True)
        hidden = [tuple(i for i in probes_to_run(g.exercise, device) if g.exercise.probes[i].visibility == "hidden")
                  for g in groups]
        # the hidden part has its own budgets, on top of the public part's
        limits = dataclasses.replace(limits, wall_seconds=limits.wall_seconds + sum(plan.budgets))
        pair = PendingPair(limits, plan, key)

        def second(first: Exchange) -> tuple[bytes, Deadline]:
            public = interpret(first, plan, key, limits)
            wanted = [i for i in then(public) if hidden[i]]
            pair.first, pair.wanted, pair.resume = public, wanted, first.reply.count(b"\n")
            pair.second = Plan(plan.kind, plan.cells, tuple(hidden[i] for i in wanted),
                               tuple(plan.totals[i] for i in wanted),
                               tuple(tuple(uses(groups[i].exercise, j) for j in hidden[i]) for i in wanted),
                               tuple(plan.budgets[i] for i in wanted), plan.load_budget)
            body = json.dumps({"groups": [{"group": i, "probes": [probe_request(groups[i], j) for j in hidden[i]]}
                                          for i in wanted]}).encode()
            return frame(body), Budget(pair.second, key, time.monotonic(), offset=len(first.reply),
                                       first=pair.resume)

        pair.running = self._zygote_for(policy).launch(key + frame(request), limits, finished=functools.partial(
            _finished, key), deadline=_Deadline(plan, key), barrier=second)
        return pair

    def _request(self, submission: Submission, groups: Sequence[Group], device: Device, time_limit: float | None,
                 visibility: Visibility | None, then: bool = False) -> tuple[ImportPolicy, bytes, Plan, Limits]:
        policies = {policy_of(g.exercise) for g in groups}
        if len(policies) != 1:
            raise ValueError("one run serves exercises with the same import policy; use run()")
        (policy,) = policies
        indices = [probes_to_run(g.exercise, device, visibility) for g in groups]
        exercises = [g.exercise for g in groups]
        request = json.dumps({
            "filename": submission.name,
            "exercise": exercises[0].id if len(exercises) == 1 else "/".join(e.id for e in exercises),
            "cells": [{"label": cell.label, "source": cell.source} for cell in submission.cells],
            "siblings": [{"name": s.label, "source": s.source} for s in submission.siblings],
            "package": [{"path": f.label, "source": f.source} for f in submission.package],
            "import_paths": import_paths(exercises),
            "keep_going": submission.kind == "notebook",
            "device": device,
            "then": then,
            "policy": {"allowed": sorted(policy.allowed) if policy.allowed is not None else None,
                       "forbidden": sorted(policy.forbidden), "describe": policy.describe()},
            "groups": [
                {"engine": g.exercise.probe_engine, "defines": dict(g.exercise.defines),
                 "autograd": g.exercise.autograd, "forbid_ops": list(g.exercise.forbid_ops),
                 "forbid_complex": g.exercise.forbid_complex, "graph": graph_request(g.exercise),
                 "probes": [probe_request(g, i) for i in group_indices]}
                for g, group_indices in zip(groups, indices, strict=True)
            ],
        }).encode()
        budgets = tuple(time_limit or e.time_limit for e in exercises)
        load = time_limit or max(budgets)
        extra = CUDA_STARTUP_SECONDS if device == "cuda" else 0.0
        # CUDA maps far more address space than it uses, so only the wall clock and CPU time bound it.
        limits = Limits(wall_seconds=load + sum(budgets) + extra,
                        memory_mb=0 if device == "cuda" else max(e.memory_mb for e in exercises))
        plan = Plan(submission.kind, tuple(c.label for c in submission.cells), tuple(indices),
                    tuple(len(e.probes) for e in exercises),
                    tuple(tuple(uses(g.exercise, i) for i in sent) for g, sent in zip(groups, indices, strict=True)),
                    tuple(b + extra for b in budgets), load + extra)
        return policy, request, plan, limits

    def start(self, submission: Submission, groups: Sequence[Group], *, device: Device = "cpu",
              time_limit: float | None = None, visibility: Visibility | None = None) -> RunSet:
        """Start grading `groups` on `device`: the first child starts now; `RunSet.results()` does the rest.

        Groups that allow the same imports share a child (those that allow anything first: a notebook's
        own output is best read from the run that can import all it does). A group whose probes stop
        their child (a loop, a crash) costs only itself: the groups after it get a fresh child.
        """
        return RunSet(self, submission, groups, device, time_limit, visibility)


class RunSet:
    """The children that grade one submission's groups on one device, one after another."""

    def __init__(self, sandbox: Sandbox, submission: Submission, groups: Sequence[Group], device: Device,
                 time_limit: float | None, visibility: Visibility | None = None) -> None:
        self._sandbox, self._submission, self._groups = sandbox, submission, list(groups)
        self._device, self._time_limit, self._visibility = device, time_limit, visibility
        self._queue = sorted(_by_policy(groups), key=lambda ix: policy_of(groups[ix[0]].exercise).allowed is not None)
        self._pending: tuple[list[int], PendingRun] | None = self._launch(self._queue.pop(0)) if groups else None

    def _launch(self, indices: list[int]) -> tuple[list[int], PendingRun]:
        return indices, self._sandbox.launch(self._submission, [self._groups[i] for i in indices],
                                             device=self._device, time_limit=self._time_limit,
                                             visibility=self._visibility)

    def results(self) -> list[tuple[RunResult, int]]:
        """For each group, the child's run that graded it and the group's place in that run."""
        found: dict[int, tuple[RunResult, int]] = {}
        while self._pending is not None:
            pending, running = self._pending
            result = running.result()
            stopped = next((k for k, g in enumerate(result.groups) if g.stop is not None), None)
            last = len(pending) - 1 if stopped is None or result.stop is not None else stopped
            for k in range(last + 1):
                found[pending[k]] = (result, k)
            rest = pending[last + 1:]
            if rest:
                self._queue.insert(0, rest)
            self._pending = self._launch(self._queue.pop(0)) if self._queue else None
        return [found[i] for i in range(len(self._groups))]


def distinct_children(found: Sequence[tuple[RunResult, int]]) -> list[RunResult]:
    """The children a `RunSet.results()` ran in, each once, in order (groups that shared a child name it twice)."""
    return list({id(run): run for run, _ in found}.values())


def refusal(mode: isolate.Mode, minimum: isolate.Level) -> str:
    return (f"cannot isolate submissions here as well as --isolation {minimum} asks: this machine allows "
            f"{mode.level} ({mode.describe()}); missing: {mode.missing}. Grade as root in a container given "
            f"CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN), or where unprivileged user namespaces or Landlock "
            f"are available; or pass --isolation none to accept the risk.")


class _Deadline:
    """The run's deadline moves as it reaches each exercise (grader.run.reply.Budget), from its first call."""

    def __init__(self, plan: Plan, key: bytes) -> None:
        self._plan, self._key = plan, key
        self._budget: Budget | None = None

    def __call__(self, reply: bytearray, now: float) -> float:
        if self._budget is None:
            self._budget = Budget(self._plan, self._key, now)
        return self._budget(reply, now)


def _finished(key: bytes, reply: bytes) -> bool:
    """The reply ends with the child's signed word that it is done."""
    if not reply.endswith(b"\n"):
        return False
    head, _, body = reply[reply.rfind(b"\n", 0, len(reply) - 1) + 1:-1].partition(b" ")
    return body.startswith(b'{"event":"done"') and hmac.compare_digest(
        head, hmac.new(key, body, "sha256").hexdigest().encode())


def _by_policy(groups: Sequence[Group]) -> list[list[int]]:
    """Group indices, in order, by the imports their exercises allow."""
    found: dict[ImportPolicy, list[int]] = {}
    for index, group in enumerate(groups):
        found.setdefault(policy_of(group.exercise), []).append(index)
    return list(found.values())


class PendingRun:
    def __init__(self, running: Running, limits: Limits, plan: Plan, key: bytes) -> None:
        self._running, self._limits, self._plan, self._key = running, limits, plan, key

    def result(self) -> RunResult:
        return interpret(self._running.wait(), self._plan, self._key, self._limits)


#: which groups' hidden checks a run in two parts goes on to, given its public part's result
Then = Callable[[RunResult], Sequence[int]]


class PendingPair:
    """A run in two parts (Sandbox.launch_then): `results()` gives the public part's result, and the hidden
    part's with the groups it holds (None where it went on to none)."""

    def __init__(self, limits: Limits, plan: Plan, key: bytes) -> None:
        self._limits, self._plan, self._key = limits, plan, key
        self.running: Running | None = None
        self.first: RunResult | None = None
        self.second: Plan | None = None
        self.wanted: list[int] = []
        self.resume = 0

    def results(self) -> tuple[RunResult, RunResult | None, list[int]]:
        assert self.running is not None
        exchange = self.running.wait()
        if self.first is None:  # it never said all of its public part: the whole run is that part
            return interpret(exchange, self._plan, self._key, self._limits), None, []
        if not self.wanted or self.second is None:
            return self.first, None, []
        return self.first, interpret(exchange, self.second, self._key, self._limits, self.resume), self.wanted


def frame(data: bytes) -> bytes:
    """One part of a child's request: its size in 8 bytes, then the bytes (grader.run.child.child reads it)."""
    return len(data).to_bytes(8, "big") + data


def runs_lean(exercises: Sequence[Exercise]) -> bool:
    """Whether these exercises run in a zygote without torch: none of them lets torch in."""
    return bool(exercises) and all(not e.uses_torch for e in exercises)
