"""In the child, for torch exercises: what autograd did during each probe, as evidence for the
trusted side.

Where an exercise requires autograd to find the gradients, a syntax tree that calls backward()
proves nothing (the call may never run). So the child records, while each probe runs: how many times
the submission's own code started torch's autograd engine (backward, autograd.grad), the numbers
each input's .grad held when the engine left it (a .grad set or changed by hand afterwards is not
the engine's), every number the engine produced as a gradient (so that a gradient the probe reads
can be proved to be one of them, not worked out by hand after a backward() of something else), and
which of the torch operators the exercise forbids ran (custom-sigmoid's own derivative,
sigmoid_backward).

Everything torch calls back into is reachable by the submission (`Variable._execution_engine`, a
tensor's hooks, the dispatch mode stack, and through them their closures), so none of it holds the
record. The record lives in the locals of generators, whose frames the guard refuses to hand out;
what the submission can reach only sends them messages, and every message it can send makes the
engine really run (the engine is called from inside the record's own generator) or only adds to what
counts against it. The harness's own messages carry a token that only the harness holds. The
forbidden operators are watched by kernels registered under torch's own for the CPU and CUDA keys,
which no dispatch mode, guard or `_disable_current_modes()` skips. A gradient that reaches an input
while the record's engine is not running (a swapped `_execution_engine`, an engine of the
submission's own) is counted as seen out of sight.
"""

from __future__ import annotations

import builtins
import sys
import types
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from grader.run.child.forbidden_ops import ops_record, watch_forbidden
from grader.run.observed import MAX_PRODUCED

#: how much of a graph is walked to find its leaves
MAX_NODES = 10_000


#: a record as the harness holds it: watch(inputs) and enter() before a probe, leave() and
#: report(inputs) after it. Plain functions over closures, never an object's methods: every class is
#: reachable (object.__subclasses__()) and its attributes can be assigned without an audit event, so
#: the class of a harness object would be the submission's to rewrite (a method replaced, or a
#: property put over an instance's attribute).
Record = tuple[
    Callable[[Mapping[str, Any]], None],
    Callable[[], None],
    Callable[[], None],
    Callable[[Mapping[str, Any]], dict[str, Any]],
]


def record_autograd(
    torch: Any, forbid_ops: Sequence[str], trusted: Sequence[str], *, produced: bool
) -> Record:
    """Installed once per run, before the submission's code. `produced`: whether to record the
    gradients the engine makes (only `autograd: required` reads them). Nothing it installs into
    torch refers to the record."""
    token = object()
    variable = torch.autograd.variable.Variable
    original = variable._execution_engine
    numbers = _reader(torch)
    own = _own_world()  # what the record runs on: reachable from nothing torch holds
    sight = _started(own["_sight"](token))
    folders = tuple(f.rstrip("/") + "/" for f in trusted)
    send = _started(own["_record"](torch, original, folders, numbers, produced, token, sight))
    ops = _started(ops_record(token))
    base = tensor_base(torch)
    reading = (
        torch.Tensor.register_hook,
        (torch.Tensor, torch.nn.Parameter),
        base.requires_grad.__get__,
        base.is_leaf.__get__,
    )
    engine = _engine(send, original)
    variable._execution_engine = engine
    mode = watch_forbidden(torch, tuple(forbid_ops), ops) if forbid_ops else None
    # bound now: what the mode's class holds later is the submission's to change
    bracket = (mode.__enter__, mode.__exit__) if mode is not None else (None, None)
    return _record_of(token, (send, sight, ops), reading, bracket, (variable, engine))


def _started(generator: Generator[Any, Any, None]) -> Callable[[Any], Any]:
    """A generator started, as the function that sends it messages."""
    next(generator)
    return generator.send


def _record_of(
    token: object,
    messengers: tuple[Callable[[Any], Any], ...],
    reading: tuple[Any, ...],
    bracket: tuple[Any, Any],
    engine_at: tuple[Any, Any],
) -> Record:
    """The record as the harness holds it: functions over closures that message the record's
    generators with the harness's token."""
    send, sight, ops = messengers
    register_hook, kinds, requires_grad, is_leaf = reading
    mode_enter, mode_exit = bracket
    variable, engine = engine_at
    type_ = type

    def leaves_of(inputs: Mapping[str, Any]) -> dict[str, Any]:
        leaves = {}
        for name, value in inputs.items():
            if type_(value) in kinds and requires_grad(value) and is_leaf(value):
                leaves[name] = value
        return leaves

    def watch(inputs: Mapping[str, Any]) -> None:
        """Before a probe: start a fresh record, and watch every input that requires grad."""
        leaves = leaves_of(inputs)
        send(("watch", token))
        sight((token, "reset"))
        for leaf in leaves.values():
            register_hook(leaf, sight)

    def enter() -> None:
        ops((token, "on"))
        if mode_enter is not None:
            mode_enter()

    def leave() -> None:
        if mode_exit is not None:
            mode_exit(None, None, None)
        ops((token, "off"))

    def report(inputs: Mapping[str, Any]) -> dict[str, Any]:
        """After a probe: the evidence, as plain data."""
        found: dict[str, Any] = send(("report", token, leaves_of(inputs)))
        found["forbidden_ops"] = ops((token, "take"))
        found["unseen_runs"] = sight((token, "take"))
        found["engine_replaced"] = variable._execution_engine is not engine
        return found

    return watch, enter, leave, report


def _engine(send: Callable[[Any], Any], original: Any) -> Any:
    """What torch's Python code finds at `Variable._execution_engine`: every backward it starts goes
    to the record.

    The submission reaches this object (through torch), its class and its methods: their globals are
    an empty dict of their own, not this module's (whose names the record runs on), and they look no
    name up."""
    value_error = ValueError

    class _Engine:
        """torch's engine, behind the record: a backward started here runs inside the record's
        generator."""

        def run_backward(self, *args: Any, **kwargs: Any) -> Any:
            try:
                kind, value = send(("run", args, kwargs))
            # the record is running a backward already: this one is nested in it
            except value_error:
                return original.run_backward(*args, **kwargs)
            if kind == "raise":
                raise value
            return value

        def queue_callback(self, *args: Any, **kwargs: Any) -> Any:
            return original.queue_callback(*args, **kwargs)

        def is_checkpoint_valid(self) -> Any:
            return original.is_checkpoint_valid()

    for name in ("run_backward", "queue_callback", "is_checkpoint_valid"):
        method = _Engine.__dict__[name]
        setattr(
            _Engine,
            name,
            types.FunctionType(
                method.__code__, {"__builtins__": {}}, name, None, method.__closure__
            ),
        )
    return _Engine()


def _own_world() -> dict[str, Any]:
    """The record's functions rebuilt over globals and builtins of their own, a copy taken before
    the submission runs: a submission that reaches this module's namespace (or any builtins dict)
    changes nothing they call."""
    world: dict[str, Any] = {
        "__builtins__": dict(builtins.__dict__),
        "MAX_NODES": MAX_NODES,
        "MAX_PRODUCED": MAX_PRODUCED,
        "sys": types.SimpleNamespace(_getframe=sys._getframe),
    }
    functions = (
        _record,
        _graph_readers,
        _backward,
        _kept,
        _told,
        _walk,
        _same,
        _sight,
        tensor_base,
    )
    for function in functions:
        name = function.__name__
        world[name] = types.FunctionType(function.__code__, world, name)
    return world


def _record(
    torch: Any,
    engine: Any,
    trusted: tuple[str, ...],
    numbers: Callable[[Any], tuple[float, ...]],
    produced_wanted: bool,
    token: object,
    sight: Callable[[Any], Any],
) -> Generator[Any, Any, None]:
    """The record of one probe. Messages: ("run", args, kwargs) runs the engine for real and
    records it; ("watch", token) starts a record, ("report", token, leaves) ends it.

    Its state is a dict in this generator's locals, passed to no frame but those of its own
    functions while they run."""
    type_, len_, base = type, len, BaseException
    graph = _graph_readers(torch)
    running = (engine, trusted, numbers, produced_wanted, sight, token)
    state: dict[str, Any] = {
        "runs": {"student": 0, "probe": 0},
        "produced": [],
        "left": {},  # id(leaf) -> the numbers the engine left in its .grad
        "watching": False,
        # messages only the submission sends: thrown in, or neither a run nor the harness's
        "tampered": 0,
    }
    answer: Any = None
    while True:
        try:
            message = yield answer
        except base:  # thrown in by the submission: the record goes on
            message = None
        answer = None
        if type_(message) is not tuple or not message or type_(message[0]) is not str:
            state["tampered"] += 1
        elif message[0] == "run" and len_(message) == 3:
            answer = _backward(message[1], message[2], state, graph, running)
        elif len_(message) >= 2 and message[1] is token:
            answer = _told(message, state, graph, numbers)
        else:
            state["tampered"] += 1


def _graph_readers(torch: Any) -> tuple[Any, ...]:
    """What a graph is read through, torch's C types only: the tensor and parameter types, a
    tensor's grad and grad_fn, a Function's base type and its next_functions."""
    base = tensor_base(torch)
    function_base = torch._C._FunctionBase
    return (
        torch.Tensor,
        torch.nn.Parameter,
        base.grad.__get__,
        base.grad_fn.__get__,
        function_base,
        function_base.next_functions.__get__,
    )


def _backward(
    args: Any, kwargs: Any, state: dict[str, Any], graph: tuple[Any, ...], running: tuple[Any, ...]
) -> Any:
    """A backward started through torch's engine: run for real, and recorded while a probe is
    watched; what the engine gave or raised, for the caller."""
    type_, getframe, base = type, sys._getframe, BaseException
    engine, trusted, numbers, produced_wanted, sight, token = running
    if type_(args) is not tuple or type_(kwargs) is not dict:
        state["tampered"] += 1
        return None
    leaves: list[Any] = []
    if state["watching"]:
        frame: Any = getframe(2)  # the record's caller: the engine's run_backward
        while frame is not None and frame.f_code.co_filename.startswith(trusted):
            frame = frame.f_back  # torch's own frames, and the grader's
        named = frame is not None and frame.f_code.co_filename.startswith("<probe ")
        state["runs"]["probe" if named else "student"] += 1
        roots = args[0] if args else kwargs.get("tensors", ())
        leaves = _walk(roots, graph)
    sight((token, True))
    try:
        result = engine.run_backward(*args, **kwargs)
        answer = ("return", result)
    except base as exc:  # handed back to the caller, as the engine raised it
        answer = ("raise", exc)
        result = None
    finally:
        sight((token, False))
    if state["watching"]:
        _kept(leaves, result, state, graph, numbers, produced_wanted)
    return answer


def _kept(
    leaves: list[Any],
    result: Any,
    state: dict[str, Any],
    graph: tuple[Any, ...],
    numbers: Callable[[Any], tuple[float, ...]],
    produced_wanted: bool,
) -> None:
    """What the engine left in each leaf's .grad, and, where asked, every gradient it made."""
    type_, id_, len_ = type, id, len
    tensor, grad_of = graph[0], graph[2]
    made = [grad_of(leaf) for leaf in leaves]
    for leaf, grad in zip(leaves, made, strict=True):
        state["left"][id_(leaf)] = numbers(grad) if type_(grad) is tensor else None
    if not produced_wanted:
        return
    made += list(result) if type_(result) in (tuple, list) else []
    produced = state["produced"]
    for grad in made:
        if type_(grad) is tensor and len_(produced) < MAX_PRODUCED:
            produced.extend(numbers(grad)[: MAX_PRODUCED - len_(produced)])


def _told(
    message: tuple[Any, ...],
    state: dict[str, Any],
    graph: tuple[Any, ...],
    numbers: Callable[[Any], tuple[float, ...]],
) -> Any:
    """The harness's word: a fresh record ("watch"), or the record of the probe ("report")."""
    kind = message[0]
    if kind == "watch":
        state["runs"].update(student=0, probe=0)
        state["produced"].clear()
        state["left"].clear()
        state["watching"] = True
        return None
    if kind != "report" or len(message) != 3:
        return None
    tensor, grad_of = graph[0], graph[2]
    forged = []
    for name, leaf in message[2].items():
        grad = grad_of(leaf)
        if type(grad) is tensor and not _same(state["left"].get(id(leaf)), numbers(grad)):
            forged.append(name)  # set by hand, or changed after the engine left it
    state["watching"] = False
    runs = state["runs"]
    answer = {
        "runs": runs["student"],
        "probe_runs": runs["probe"],
        "not_from_engine": forged,
        "produced": list(state["produced"]),
        "tampered": state["tampered"],
    }
    state["tampered"] = 0
    return answer


def _walk(roots: Any, graph: tuple[Any, ...]) -> list[Any]:
    """The leaves a backward from `roots` accumulates into, found before it runs (the graph may
    be freed), read through torch's C types only: a Function's backward class is the
    submission's and may be patched."""
    type_, id_ = type, id
    tensor, parameter, _, grad_fn_of, function_base, function_next = graph
    roots = roots if type_(roots) in (tuple, list) else (roots,)
    todo = [grad_fn_of(t) for t in roots if type_(t) is tensor]
    seen: set[int] = set()
    leaves = []
    while todo and len(seen) < MAX_NODES:
        node = todo.pop()
        if node is None or id_(node) in seen:
            continue
        seen.add(id_(node))
        if isinstance(node, function_base):
            following = function_next(node)
        else:  # torch's own nodes: immutable C types
            variable = getattr(node, "variable", None)
            if type_(variable) is tensor or type_(variable) is parameter:
                leaves.append(variable)
            following = getattr(node, "next_functions", ())
        todo.extend(pair[0] for pair in following if type_(pair) is tuple and len(pair) == 2)
    return leaves


def _same(left: tuple[float, ...] | None, now: tuple[float, ...]) -> bool:
    """The same numbers, NaN included (a NaN gradient the engine left is still the engine's)."""
    return (
        left is not None
        and len(left) == len(now)
        and all(a == b or (a != a and b != b) for a, b in zip(left, now, strict=True))
    )


def _sight(token: object) -> Generator[Any, Any, None]:
    """Counts gradients that reach a watched input while the record's engine is not running: torch's
    engine run out of the record's sight. A tensor hook sends it the gradient (and gets None back:
    nothing is changed)."""
    type_ = type
    inside = False
    unseen = 0
    answer: Any = None
    while True:
        try:
            message = yield answer
        except BaseException:  # noqa: BLE001 - thrown in by the submission: the count goes on
            continue
        answer = None
        if type_(message) is tuple and len(message) == 2 and message[0] is token:
            if message[1] is True or message[1] is False:
                inside = message[1]
            elif message[1] == "reset":
                unseen = 0
            elif message[1] == "take":
                answer, unseen = unseen, 0
        elif not inside:
            unseen += 1


def tensor_base(torch: Any) -> Any:
    """torch's C tensor type, whose methods and attributes no submission can patch (TensorBase from
    2.2 on)."""
    return getattr(torch._C, "TensorBase", None) or torch._C._TensorBase


def _reader(torch: Any) -> Callable[[Any], tuple[float, ...]]:
    """A tensor's numbers, read through torch's C methods with every mode of the submission's turned
    off."""
    base = tensor_base(torch)
    detach, to, reshape, tolist = base.detach, base.to, base.reshape, base.tolist
    no_function, no_dispatch, float64, float_, tuple_ = (
        torch._C.DisableTorchFunction,
        torch._C._DisableTorchDispatch,
        torch.float64,
        float,
        tuple,
    )

    def numbers(t: Any) -> tuple[float, ...]:
        with no_function(), no_dispatch():
            flat = reshape(to(detach(t), device="cpu", dtype=float64), (-1,))
            return tuple_(float_(x) for x in tolist(flat))

    return numbers


#: the evidence of a run with no torch record (an exercise whose only run-time rule is
#: forbid_complex)
NO_TORCH: dict[str, Any] = {
    "runs": 0,
    "probe_runs": 0,
    "not_from_engine": [],
    "forbidden_ops": [],
    "produced": [],
    "unseen_runs": 0,
    "engine_replaced": False,
    "tampered": 0,
}


def together(parts: Sequence[Record]) -> Record:
    """The records a run keeps (the autograd record, grader.run.child.complex_watch's), bracketing
    each probe together."""
    parts = tuple(parts)
    backwards = parts[::-1]
    base = dict(NO_TORCH)

    def watch(inputs: Mapping[str, Any]) -> None:
        for part in parts:
            part[0](inputs)

    def enter() -> None:
        for part in parts:
            part[1]()

    def leave() -> None:
        for part in backwards:
            part[2]()

    def report(inputs: Mapping[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = {**base, "produced": [], "complex": ""}
        for part in parts:
            found.update(part[3](inputs))
        return found

    return watch, enter, leave, report
