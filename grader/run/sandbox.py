"""Run a submission's probes in sandboxed children and read back what happened, as untrusted data.

A run is one child: it loads the submission once, then runs the probes of each group it is given.
`Sandbox.launch` starts one; `Sandbox.start` grades groups across as many children as their import
policies and stops need (a `RunSet`). A two-part run (`Sandbox.launch_two_parts`) runs the public
checks, and then, in the same child, the hidden ones: its public part and its hidden part.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hmac
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from grader.core.errors import GraderError
from grader.core.exercise import Device, Exercise, Visibility
from grader.run.confine import isolate
from grader.run.inputs import Inputs, input_to_data, probe_seed
from grader.run.observed import GroupRun, RunResult
from grader.run.policy import ImportPolicy, engine_policy, torch_policy
from grader.run.read.load import Submission
from grader.run.reply import Budget, GroupPlan, Plan, interpret
from grader.run.running import Deadline, Exchange, Limits, Running
from grader.run.wire import (
    GraphRequest,
    GroupRequest,
    ProbeRequest,
    Request,
    SecondPart,
    SourceFile,
    encode,
    frame,
)
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


def probes_to_run(
    exercise: Exercise, device: Device, visibility: Visibility | None = None
) -> tuple[int, ...]:
    """The probes a run of `exercise` on `device` makes, in order.

    All of them; the public ones alone; or, for a hidden part in a child of its own, every probe
    up to the last hidden one. The hidden checks then meet the state the public ones leave (weights
    kept between calls, a gradient that piles up) as they would in one run. Of that run only the
    hidden probes' records are read (grader.judge.hidden_runs).
    """
    probes = exercise.probes
    on = [i for i, probe in enumerate(probes) if device in probe.devices]
    if visibility == "public":
        return tuple(i for i in on if probes[i].visibility == "public")
    if visibility == "hidden":
        hidden = [i for i in on if probes[i].visibility == "hidden"]
        last = max(hidden, default=-1)
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

    Each zygote is a fresh interpreter that holds none of this process's memory, confined as well
    as this machine allows (grader.run.confine.isolate): a torch one, and one per set of allowed
    packages for engine exercises, which never import torch (nor ctypes).

    `minimum`: the weakest isolation to accept; below it, entering the sandbox raises
    `IsolationRefused` (exit 2) before any submission runs. `hide`: folders a child must not see,
    even where they lie inside one it needs.
    """

    def __init__(
        self,
        *,
        lean: bool = False,
        hide: Sequence[Path] = (),
        minimum: isolate.Level = "none",
        mode: isolate.Mode | None = None,
        first: ImportPolicy | None = None,
    ) -> None:
        self._hide = tuple(str(Path(p).resolve()) for p in hide)
        self._zygotes: dict[str, Zygote] = {}
        #: the zygote started on entry, to warm up while the grading process works
        self._first = first or (engine_policy() if lean else torch_policy())
        self.minimum = minimum
        #: how children are confined: the strongest mode this machine allows, unless given (tests)
        self.mode = mode or isolate.best_mode()

    def __enter__(self) -> Sandbox:
        if not isolate.at_least(self.mode.level, self.minimum):
            raise IsolationRefused(refusal(self.mode, self.minimum))
        isolate.protect_grader()
        self._zygote_for(self._first)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for zygote in self._zygotes.values():
            zygote.close()
        self._zygotes.clear()

    def warming(self) -> bool:
        """Whether a zygote is still warming up: the first child waits for it, so work done
        first is free."""
        return any(not zygote.ready() for zygote in self._zygotes.values())

    def _zygote_for(self, policy: ImportPolicy) -> Zygote:
        zygote = self._zygotes.get(policy.key)
        if zygote is not None:
            return zygote
        zygote = Zygote(policy, self.mode, hide=self._hide)
        try:
            zygote.start()
        except ZygoteFailed as exc:
            raise GraderError(
                f"the sandbox could not be set up here: {exc}. Run with --isolation none to "
                f"grade without it (see docs/security.md)."
            ) from None
        self._zygotes[policy.key] = zygote
        return zygote

    def launch(
        self,
        submission: Submission,
        groups: Sequence[Group],
        *,
        device: Device = "cpu",
        time_limit: float | None = None,
        visibility: Visibility | None = None,
    ) -> PendingRun:
        """Start one child that runs `submission` once, then the probes of each group meant for
        `device` (and of `visibility`, where given: a hidden part in a child of its own,
        grader.judge.hidden_runs).

        Every group must allow the same imports (`start` sorts them by policy). The child works
        while the caller computes expected values.
        """
        key = secrets.token_bytes(32)
        launch = _Launch(submission, groups, device, time_limit, visibility)
        running = self._zygote_for(launch.policy).launch(
            key + frame(encode(launch.request)),
            launch.limits,
            finished=functools.partial(_finished, key),
            deadline=_Deadline(launch.plan, key),
        )
        return PendingRun(running, launch.limits, launch.plan, key)

    def launch_two_parts(
        self,
        submission: Submission,
        groups: Sequence[Group],
        *,
        hidden_groups: HiddenGroups,
        device: Device = "cpu",
        time_limit: float | None = None,
    ) -> TwoPartRun:
        """Start a two-part run: the groups' public checks, as `launch` runs them; then, in the
        same child, once all it said of them has been taken (its output too), the hidden checks
        of the groups that `hidden_groups` picks from the public part's result.

        The child has the hidden checks' inputs only once nothing it does can reach the public
        part's result: of what it says from then on only the hidden checks' records are read,
        and its output is dropped (grader.run.running.Running). The hidden checks meet the state
        the public ones left, as in one run.
        """
        key = secrets.token_bytes(32)
        launch = _Launch(submission, groups, device, time_limit, "public", two_parts=True)
        # the hidden part has its own budgets, on top of the public part's
        budgets = sum(group.budget for group in launch.plan.groups)
        limits = dataclasses.replace(
            launch.limits, wall_seconds=launch.limits.wall_seconds + budgets
        )
        run = TwoPartRun(groups, device, launch.plan, key, limits, hidden_groups)
        run.running = self._zygote_for(launch.policy).launch(
            key + frame(encode(launch.request)),
            limits,
            finished=functools.partial(_finished, key),
            deadline=_Deadline(launch.plan, key),
            two_parts=run.second_part,
        )
        return run

    def start(
        self,
        submission: Submission,
        groups: Sequence[Group],
        *,
        device: Device = "cpu",
        time_limit: float | None = None,
        visibility: Visibility | None = None,
    ) -> RunSet:
        """Start grading `groups` on `device`: the first child starts now; `RunSet.results()`
        does the rest.

        Groups that allow the same imports share a child (those that allow anything first: a
        notebook's own output is best read from the run that can import all it does). A group
        whose probes stop their child (a loop, a crash) costs only itself: the groups after it
        get a fresh child.
        """
        return RunSet(self, submission, groups, device, time_limit, visibility)


class _Launch:
    """What one child is asked: the request, the plan its reply is read against, its limits."""

    def __init__(
        self,
        submission: Submission,
        groups: Sequence[Group],
        device: Device,
        time_limit: float | None,
        visibility: Visibility | None,
        two_parts: bool = False,
    ) -> None:
        policies = {policy_of(group.exercise) for group in groups}
        if len(policies) != 1:
            raise ValueError("one run serves exercises of one import policy; use start()")
        (self.policy,) = policies
        sent = [probes_to_run(g.exercise, device, visibility) for g in groups]
        exercises = [group.exercise for group in groups]
        self.request = Request(
            filename=submission.name,
            exercise="/".join(exercise.id for exercise in exercises),
            cells=tuple(SourceFile(c.label, c.source) for c in submission.cells),
            siblings=tuple(SourceFile(s.label, s.source) for s in submission.siblings),
            package=tuple(SourceFile(f.label, f.source) for f in submission.package),
            import_paths=_import_paths(exercises),
            keep_going=submission.kind == "notebook",
            device=device,
            two_parts=two_parts,
            allowed=_sorted(self.policy.allowed),
            forbidden=tuple(sorted(self.policy.forbidden)),
            groups=tuple(_group_request(g, p) for g, p in zip(groups, sent, strict=True)),
        )
        budgets = [time_limit or exercise.time_limit for exercise in exercises]
        load = time_limit or max(budgets)
        extra = CUDA_STARTUP_SECONDS if device == "cuda" else 0.0
        # CUDA maps far more address space than it uses: only the wall clock and CPU time bound it
        memory = max(exercise.memory_mb for exercise in exercises)
        self.limits = Limits(
            wall_seconds=load + sum(budgets) + extra,
            memory_mb=0 if device == "cuda" else memory,
        )
        planned = []
        for group, probes, budget in zip(groups, sent, budgets, strict=True):
            planned.append(_group_plan(group, probes, budget + extra))
        cells = tuple(cell.label for cell in submission.cells)
        self.plan = Plan(submission.kind, cells, tuple(planned), load + extra)


class RunSet:
    """The children that grade one submission's groups on one device, one after another."""

    def __init__(
        self,
        sandbox: Sandbox,
        submission: Submission,
        groups: Sequence[Group],
        device: Device,
        time_limit: float | None,
        visibility: Visibility | None = None,
    ) -> None:
        self._sandbox, self._submission = sandbox, submission
        self._groups = list(groups)
        self._device, self._time_limit = device, time_limit
        self._visibility = visibility
        self._queue = _by_policy(groups)
        self._pending: tuple[list[int], PendingRun] | None = None
        if groups:
            self._pending = self._launch(self._queue.pop(0))

    def _launch(self, indices: list[int]) -> tuple[list[int], PendingRun]:
        run = self._sandbox.launch(
            self._submission,
            [self._groups[i] for i in indices],
            device=self._device,
            time_limit=self._time_limit,
            visibility=self._visibility,
        )
        return indices, run

    def results(self) -> list[tuple[RunResult, int]]:
        """For each group, the child's run that graded it and the group's place in that run."""
        found: dict[int, tuple[RunResult, int]] = {}
        while self._pending is not None:
            pending, running = self._pending
            result = running.result()
            stopped = [k for k, group in enumerate(result.groups) if group.stop is not None]
            last = len(pending) - 1
            if stopped and result.stop is None:
                last = stopped[0]
            for k in range(last + 1):
                found[pending[k]] = (result, k)
            rest = pending[last + 1 :]
            if rest:
                self._queue.insert(0, rest)
            self._pending = self._launch(self._queue.pop(0)) if self._queue else None
        return [found[i] for i in range(len(self._groups))]


def distinct_children(found: Sequence[tuple[RunResult, int]]) -> list[RunResult]:
    """The children a `RunSet.results()` ran in, each once, in order (groups that shared a
    child name it twice)."""
    children = {id(run): run for run, _ in found}
    return list(children.values())


def refusal(mode: isolate.Mode, minimum: isolate.Level) -> str:
    return (
        f"cannot isolate submissions here as well as --isolation {minimum} asks: this machine "
        f"allows {mode.level} ({mode.describe()}); missing: {mode.missing}. Grade as root in a "
        f"container given CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN), or where unprivileged "
        f"user namespaces or Landlock are available; or pass --isolation none to accept the risk."
    )


class PendingRun:
    """A child at work on one run: `result()` waits for it and reads its reply."""

    def __init__(self, running: Running, limits: Limits, plan: Plan, key: bytes) -> None:
        self._running, self._limits, self._plan, self._key = running, limits, plan, key

    def result(self) -> RunResult:
        return interpret(self._running.wait(), self._plan, self._key, self._limits)


#: which groups a two-part run's hidden part holds, given its public part's result
HiddenGroups = Callable[[RunResult], Sequence[int]]


class TwoPartRun:
    """A two-part run (Sandbox.launch_two_parts): its public part's result for every group, and
    its hidden part's records of the groups that went on to it."""

    def __init__(
        self,
        groups: Sequence[Group],
        device: Device,
        plan: Plan,
        key: bytes,
        limits: Limits,
        hidden_groups: HiddenGroups,
    ) -> None:
        self._groups = list(groups)
        self._plan, self._key, self._limits = plan, key, limits
        self._hidden_groups = hidden_groups
        #: each group's hidden probes on the device
        self._hidden = [_hidden_probes(group.exercise, device) for group in groups]
        self.running: Running | None = None
        #: the public part's result, once the child has said all of it
        self._public: RunResult | None = None
        #: the groups the hidden part holds, and the plan it is read against
        self._wanted: list[int] = []
        self._second: Plan | None = None
        #: how many of the reply's lines are the public part's
        self._resume = 0
        self._found: tuple[RunResult, RunResult | None] | None = None

    def second_part(self, first: Exchange) -> tuple[bytes, Deadline]:
        """Once the child has said all of the public part (`first`): the hidden part's request,
        and its deadline (grader.run.running.TwoParts)."""
        public = interpret(first, self._plan, self._key, self._limits)
        wanted = [i for i in self._hidden_groups(public) if self._hidden[i]]
        self._public, self._wanted = public, wanted
        self._resume = first.reply.count(b"\n")
        planned, parts = [], []
        for i in wanted:
            group, probes = self._groups[i], self._hidden[i]
            budget = self._plan.groups[i].budget
            planned.append(_group_plan(group, probes, budget))
            parts.append((i, tuple(_probe_request(group, j) for j in probes)))
        self._second = dataclasses.replace(self._plan, groups=tuple(planned))
        request = frame(encode(SecondPart(tuple(parts))))
        deadline = Budget(
            self._second,
            self._key,
            time.monotonic(),
            offset=len(first.reply),
            first=self._resume,
        )
        return request, deadline

    def _results(self) -> tuple[RunResult, RunResult | None]:
        """The public part's result, and the hidden part's (None where it went on to no group)."""
        if self._found is not None:
            return self._found
        assert self.running is not None
        exchange = self.running.wait()
        if self._public is None:  # it never said all of its public part: the run is that part
            public = interpret(exchange, self._plan, self._key, self._limits)
            self._found = public, None
        elif not self._wanted or self._second is None:
            self._found = self._public, None
        else:
            hidden = interpret(exchange, self._second, self._key, self._limits, self._resume)
            self._found = self._public, hidden
        return self._found

    def public(self) -> list[tuple[RunResult, int]]:
        """The public part, for each group, as `RunSet.results()` gives it."""
        public, _ = self._results()
        return [(public, i) for i in range(len(self._groups))]

    def hidden(self) -> tuple[list[GroupRun | None], list[RunResult]]:
        """Each group's records in the hidden part (None where it had none), and the hidden part
        itself, as grader.judge.hidden_runs.run_hidden_part gives them."""
        _, hidden = self._results()
        found: list[GroupRun | None] = [None] * len(self._groups)
        if hidden is None:
            return found, []
        for k, i in enumerate(self._wanted):
            found[i] = hidden.groups[k]
        return found, [hidden]


def runs_lean(exercises: Sequence[Exercise]) -> bool:
    """Whether these exercises run in a zygote without torch: none of them lets torch in."""
    return bool(exercises) and all(not e.uses_torch for e in exercises)


class _Deadline:
    """The run's deadline moves as it reaches each exercise (grader.run.reply.Budget), from its
    first call."""

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
    last = reply[reply.rfind(b"\n", 0, len(reply) - 1) + 1 : -1]
    head, _, body = last.partition(b" ")
    if not body.startswith(b'{"event":"done"'):
        return False
    mac = hmac.new(key, body, "sha256").hexdigest().encode()
    return hmac.compare_digest(head, mac)


def _by_policy(groups: Sequence[Group]) -> list[list[int]]:
    """Group indices, in order, by the imports their exercises allow: those that allow anything
    first."""
    found: dict[ImportPolicy, list[int]] = {}
    for index, group in enumerate(groups):
        found.setdefault(policy_of(group.exercise), []).append(index)
    anything = [found[policy] for policy in found if policy.allowed is None]
    limited = [found[policy] for policy in found if policy.allowed is not None]
    return anything + limited


def _sorted(names: frozenset[str] | None) -> tuple[str, ...] | None:
    return None if names is None else tuple(sorted(names))


def _hidden_probes(exercise: Exercise, device: Device) -> tuple[int, ...]:
    probes = probes_to_run(exercise, device)
    return tuple(i for i in probes if exercise.probes[i].visibility == "hidden")


@functools.cache
def _uses_of(code: str, names: tuple[str, ...]) -> tuple[str, ...]:
    nodes = ast.walk(ast.parse(code))
    used = {node.id for node in nodes if isinstance(node, ast.Name)}
    return tuple(name for name in names if name in used)


def _uses(exercise: Exercise, index: int) -> tuple[str, ...]:
    """The names of the exercise that a probe's code and observations use. A library's names are
    asked for by dotted path (needle.ops.EWiseMul), and known to the probe by their last part."""
    probe = exercise.probes[index]
    code = probe.code + "\n" + "\n".join(expr for _, expr in probe.observe)
    used = _uses_of(code, tuple(name for name, _ in exercise.names))
    found = []
    for dotted, _ in exercise.defines:
        if dotted.rpartition(".")[2] in used:
            found.append(dotted)
    return tuple(found)


def _import_paths(exercises: Sequence[Exercise]) -> tuple[str, ...]:
    """The folders of a library's repository put on sys.path (one course's: its exercises share
    them)."""
    paths: dict[str, None] = {}
    for exercise in exercises:
        if exercise.library is not None:
            paths.update(dict.fromkeys(exercise.library.import_paths))
    return tuple(paths)


def _graph_request(exercise: Exercise) -> GraphRequest | None:
    """How the child reads a library exercise's tensors (grader.run.child.graph), or None."""
    if exercise.library is None or exercise.library.graph is None:
        return None
    graph = exercise.library.graph
    return GraphRequest(graph.node, graph.op, graph.inputs, graph.realize, graph.lazy)


def _group_plan(group: Group, probes: tuple[int, ...], budget: float) -> GroupPlan:
    exercise = group.exercise
    uses = tuple(_uses(exercise, i) for i in probes)
    return GroupPlan(probes, len(exercise.probes), uses, budget)


def _group_request(group: Group, probes: Sequence[int]) -> GroupRequest:
    exercise = group.exercise
    return GroupRequest(
        arrays=exercise.probe_arrays,
        package=exercise.kind.package,
        defines=exercise.defines,
        autograd=exercise.autograd,
        forbid_ops=exercise.forbid_ops,
        forbid_complex=exercise.forbid_complex,
        graph=_graph_request(exercise),
        probes=tuple(_probe_request(group, i) for i in probes),
    )


def _probe_request(group: Group, index: int) -> ProbeRequest:
    exercise = group.exercise
    probe = exercise.probes[index]
    inputs = {}
    for name, value in group.inputs[index].items():
        inputs[name] = input_to_data(value)
    return ProbeRequest(
        name=probe.name,
        code=probe.code,
        observe=probe.observe,
        inputs=inputs,
        torch_seed=probe_seed(group.seed, exercise.id, probe.name),
        uses=_uses(exercise, index),
    )
