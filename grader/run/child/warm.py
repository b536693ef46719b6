"""What a zygote imports once, before it forks children, and the harness's private copy of itself;
kept apart so that a zygote imports nothing else.

A submission runs in the same process as the harness (the child's side of the grader), and can reach
much of what that process holds: every class through `object.__subclasses__()`, each method's
`__globals__` and `__builtins__`, any function's closure. So the harness shares nothing mutable with
it:

- `private_world` rebuilds every harness module over a private copy of its globals, with builtins of
  its own and a snapshot of each library module it uses (math, json, torch, numpy...), all taken
  here, before any submission runs. The copies replace the modules in `sys.modules`, so the zygote's
  run target is the private one; the public modules (which the harness's classes still refer to) are
  left as decoys, reachable but used by nothing that runs once the submission has started. Mutable
  module-level containers are copied too.
- What the harness hands to submission code (a probe's gradcheck) is `seal`ed: a function with no
  globals and no closure, whose only way on is a keyword default, which the guard refuses to let a
  submission read.
- The harness's code that runs between the submission's lines makes no object of its own classes
  (their attributes are reachable and rebindable): it works in plain tuples and dicts
  (grader.run.child.reading, execute).

A harness module (grader.run.child.evidence too) must therefore: import what it calls at its top (a
lazy import runs after the submission has changed sys.modules), keep no state in its classes that
the harness relies on once the submission runs, and hand submission code only what `seal` returns or
a per-use copy.
"""

from __future__ import annotations

import builtins
import importlib
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from grader.run.policy import WARM

#: the child's side of the grader, in import order: what runs between the submission's lines
HARNESS = (
    "grader.core.values",
    "grader.run.policy",
    "grader.run.wire",
    "grader.run.child.reading",
    "grader.run.inputs",
    "grader.run.child.execute",
    "grader.run.observed",
    "grader.run.guard.guard_public",
    "grader.run.guard.guard_code",
    "grader.run.guard.guard",
    "grader.run.child.forbidden_ops",
    "grader.run.child.evidence",
    "grader.run.child.complex_watch",
    "grader.run.child.probe_tools",
    "grader.run.child.graph",
    "grader.run.child.package",
    "grader.run.child.names",
    "grader.run.child.child",
)
#: modules the harness uses as they are: their state is live (sys.modules, sys.stdout) or their
#: objects are the interpreter's own (builtins: the guard wraps its __import__), and the guard's
#: public half, handed out by design
_LIVE = ("sys", "builtins", "grader.run.guard.guard_public")


def warm(allowed: Sequence[str] | None) -> None:
    """The child's side of the grader, and the modules a submission most likely imports, loaded once
    here.

    For an engine exercise: what engines commonly use (math, random, ..., numpy where allowed), so
    that a child finds them loaded; the child's guard refuses what the exercise does not allow. For
    a torch exercise: torch, made fork-safe (one thread, set before any fork), and the probes'
    helpers, bound before any submission can patch them. Then the harness's private world
    (`private_world`).
    """
    import hmac

    names = [n for n in HARNESS if n != "grader.run.child.probe_tools"]
    if allowed is None:
        warm_torch()
        names.append("grader.run.child.probe_tools")
    else:
        for name in (*WARM, *sorted(n for n in allowed if n not in sys.stdlib_module_names)):
            if name in allowed:
                try:
                    importlib.import_module(name)
                # an allowed package this machine lacks: a submission importing it will say
                except ImportError:
                    continue
    _harness(names)
    # OpenSSL finds its digest once here, not in every child
    hmac.new(b"warm", b"up", "sha256").digest()
    from grader.run.child import reading

    reading.bind()
    private_world([n for n in HARNESS if n in sys.modules and n not in _LIVE])


def _harness(names: list[str]) -> None:
    """Import the harness with builtins of its own (not the interpreter's, which any library
    function's __builtins__ leads to), a copy taken now: what its classes' methods look up
    (grader.run.child.evidence's, run by torch) changes only if a submission reaches those methods
    themselves."""
    import importlib.util

    own = dict(builtins.__dict__)
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        module.__dict__["__builtins__"] = own
        sys.modules[name] = module
        spec.loader.exec_module(module)


def warm_torch() -> None:
    import numpy  # noqa: F401
    import torch

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    # already set, or inter-op work has started: either way it is not ours to change
    except RuntimeError:
        pass


def private_world(names: list[str]) -> dict[str, types.ModuleType]:
    """Rebuild the modules `names` over private globals and builtins, and put the copies in
    sys.modules. None of `_LIVE` may be among them: guard_public's functions are handed out, and
    would lead to the private builtins."""
    assert not set(names) & set(_LIVE)
    own_builtins = dict(builtins.__dict__)
    publics = {name: sys.modules[name] for name in names}
    privates = {name: types.ModuleType(name) for name in publics}
    moved: dict[int, Any] = {id(module): privates[name] for name, module in publics.items()}
    live = {id(sys.modules[name]) for name in _LIVE if name in sys.modules}
    functions: list[types.FunctionType] = []
    for name, module in publics.items():
        namespace = privates[name].__dict__
        namespace.update(module.__dict__)
        namespace["__builtins__"] = own_builtins
        for key, value in module.__dict__.items():
            if type(value) is types.FunctionType and value.__globals__ is module.__dict__:
                rebuilt = types.FunctionType(
                    value.__code__, namespace, value.__name__, value.__defaults__, value.__closure__
                )
                rebuilt.__kwdefaults__ = value.__kwdefaults__
                rebuilt.__qualname__ = value.__qualname__
                moved[id(value)] = namespace[key] = rebuilt
                functions.append(rebuilt)
    snapshots: dict[int, types.ModuleType] = {}
    for private in privates.values():
        namespace = private.__dict__
        for key, value in list(namespace.items()):
            if key.startswith("__") and key.endswith("__"):
                continue
            if id(value) in moved:
                namespace[key] = moved[id(value)]
            elif type(value) is types.ModuleType and id(value) not in live:
                namespace[key] = snapshots.get(id(value)) or snapshots.setdefault(
                    id(value), _snapshot(value)
                )
            elif type(value) in (dict, list, set):
                namespace[key] = type(value)(value)
    # defaults that name a harness function or module point at the private copy
    for function in functions:
        if function.__defaults__:
            function.__defaults__ = tuple(moved.get(id(d), d) for d in function.__defaults__)
    for name, private in privates.items():
        sys.modules[name] = private
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, private)
    return privates


def _snapshot(module: types.ModuleType) -> types.ModuleType:
    copy = types.ModuleType(module.__name__)
    copy.__dict__.update(module.__dict__)
    return copy


def _entry(*args: Any, _target: Callable[..., Any] = print, **kwargs: Any) -> Any:
    return _target(*args, **kwargs)


def seal(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`function`, to be handed to submission code: a function with empty globals and builtins and
    no closure, whose one way on, a keyword default, is refused to a submission by the guard (it
    refuses reading any grader function's defaults). Rebinding anything the sealed function can
    reach changes nothing it does."""
    sealed = types.FunctionType(_entry.__code__, {"__builtins__": {}}, name)
    sealed.__kwdefaults__ = {"_target": function}
    sealed.__qualname__ = name
    return sealed
