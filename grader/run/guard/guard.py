"""The child's guard: an audit hook, installed before any submission code runs, that nothing can
remove.

It does three things.
- It is the only writer of the reply. Each line carries a sequence number and an HMAC under a
  per-run key that the hook alone holds (the key's bytes are zeroed once read). The hook writes
  only what the harness's own running frame holds in its local `event`, read from that frame:
  calling the hook from anywhere else writes nothing, so a submission cannot forge, reorder or
  complete a reply.
- Once the submission's code starts, it refuses what would let that code reach into the grader's
  side of its own process: the garbage collector's object lists, trace and profile functions, new
  code objects, bytecode or source that claims a library file's name but is not that file's, code
  swapped into functions, a grader function's defaults, ctypes, subinterpreters (which run
  without this hook), and any C extension its exercise does not allow, however it is loaded (an
  import, `_imp.create_dynamic`, ExtensionFileLoader). Each refusal is noted for the report's
  integrity section.
- It enforces the exercise's imports: a module the submission itself imports that the exercise
  does not allow becomes a placeholder that fails when used (and the report says where it was
  imported).

The hook, the key and the state live in closures of functions built over a private copy of this
module's globals and builtins (`install`): nothing a submission can reach refers to them. What it
hands out is guard_public's, which a submission may reach by design. Its tables (`_REFUSED` and
the rest) are copied into that private namespace when it is installed, before any submission
runs: changing them later changes nothing.

In a zygote with torch or numpy loaded, a submission can still read and write its own memory
through them (numpy's array interface, for one); the tree, namespaces, uid and limits hold
regardless.
"""

from __future__ import annotations

import _hashlib
import _thread
import builtins
import json
import os
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import Any, TypedDict

from grader.run.guard import guard_public
from grader.run.guard.guard_code import (
    Places,
    asker,
    frames_allowed,
    inside,
    is_file,
    module_name,
    stmt_import,
    text,
    trusted_file,
    where,
)
from grader.run.guard.guard_public import (
    ASK,
    BUILTIN,
    DYNAMIC,
    SIGNAL,
    Finder,
    guarded_create_builtin,
    guarded_create_dynamic,
    guarded_signal,
    wrap_handler,
    wrap_import,
)
from grader.run.policy import STDLIB_EXTENSIONS as _C_MODULES

#: the audit event the harness raises for the guard to send its `event`
EVENT = "autograd-grader.run.reply"
#: the length of a line's HMAC, in hex digits
MAC_HEX = 64
#: the most integrity notes a part of a run sends
MAX_NOTES = 20
#: events refused once the submission runs, and what the report says about each
_REFUSED = {
    "gc.get_objects": "gc.get_objects()",
    "gc.get_referrers": "gc.get_referrers()",
    "gc.get_referents": "gc.get_referents()",
    "sys.settrace": "sys.settrace()",
    "sys.setprofile": "sys.setprofile()",
    "sys._current_frames": "sys._current_frames()",
    "sys._current_exceptions": "sys._current_exceptions()",
    "code.__new__": "making a code object",
    "sys.monitoring.register_callback": "sys.monitoring",
}
#: what hands out frames, each a way up the stack into the grader's own frames and their variables
_FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
#: the events of a reply, the only kinds of line the guard writes
_KINDS = frozenset(
    {
        "ready",
        "cell",
        "cell_error",
        "loaded",
        "group",
        "start",
        "probe",
        "done",
        "crashed",
    }
)
#: file names no code of the submission's may carry: the interpreter's frozen modules' and the
#: probes'
_TRUSTED_NAMES = ("<frozen ", "<probe ")
_escape = json.encoder.encode_basestring_ascii  # the C one, bound now
_INF = float("inf")
#: the guard's own files: its frames are machinery, looked through, never the submission's
_OWN_FILES = frozenset({__file__, guard_public.__file__})
_FUNCTION = types.FunctionType

Hook = Callable[[str, tuple[Any, ...]], None]


class Folders(TypedDict):
    """Where code and files lie, as the guard tells the submission's from the rest."""

    #: folders whose code is not the submission's (the standard library, packages, the grader)
    trusted: Sequence[str]
    #: where the submission may write: code from there never claims to be a library's unless it
    #: lies on a read-only mount or is plainly another user's
    writable: Sequence[str]
    #: where all it holds may be the submission's (its own folder in landlock mode, where it
    #: opens files as root): nothing from there is a library's
    owned: Sequence[str]
    #: the grader package's folder, whose functions' defaults no submission may read or set
    grader: str


class Imports(TypedDict):
    """What the submission may import, and what it is told where it may not."""

    #: whether it may import a module (None: anything)
    permits: Callable[[str], bool] | None
    #: whether a C extension may be loaded at all, by anyone
    extensions: Callable[[str], bool]
    #: the words of a refusal, for a module
    refusal: Callable[[str], str]
    #: the submission's own modules, importable by it
    own_modules: Iterable[str]


def install(
    key: bytearray, reply_fd: int, harness: FrameType, *, folders: Folders, imports: Imports
) -> None:
    """Install the hook; `harness` is the frame whose `event` local says what to send.

    Both mappings are taken apart here, before any submission runs: the hook keeps plain values.
    """
    private = _private_namespace()
    make = types.FunctionType(_make_hook.__code__, private, "_make_hook")
    places = (tuple(folders["writable"]), tuple(folders["owned"]))
    where_ = (tuple(folders["trusted"]), places, folders["grader"].rstrip("/") + "/")
    rules = (
        imports["permits"],
        imports["extensions"],
        imports["refusal"],
        frozenset(imports["own_modules"]),
    )
    sys.addaudithook(make(key, reply_fd, harness, where_, rules))
    sys.dont_write_bytecode = True


def _private_namespace() -> dict[str, Any]:
    """This module's globals, with builtins and functions of their own, and copies of its tables."""
    here = globals()
    private = dict(here)
    private["__builtins__"] = dict(builtins.__dict__)
    for name, value in here.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is here:
            private[name] = types.FunctionType(
                value.__code__, private, value.__name__, value.__defaults__, value.__closure__
            )
        elif type(value) in (dict, list, set):
            private[name] = type(value)(value)
    return private


#: where the hook looks: the trusted folders, the places the submission writes, the grader's
_Where = tuple[tuple[str, ...], Places, str]
#: what the submission may import: permits, extensions, refusal, its own modules
_Rules = tuple[
    Callable[[str], bool] | None, Callable[[str], bool], Callable[[str], str], frozenset[str]
]
#: refuse_now(what, frame, noted="", error=PermissionError), refuse_c(kind, name, frame)
_Refusals = tuple[Callable[..., None], Callable[[str, str, FrameType | None], None]]


def _make_hook(
    key: bytearray, reply_fd: int, harness: FrameType, where_: _Where, rules: _Rules
) -> Hook:
    """The hook, made of closures that share its state; run over the private namespace."""
    trusted, places, _ = where_
    state: dict[str, Any] = {"n": 0, "last": None, "student": False, "notes": 0}
    send = _sender(key, reply_fd, state)
    note = _noter(send, state, trusted)
    refusals = _refusals(note)
    refuse = _import_refusal(state, note, trusted, rules)
    finder = Finder()
    originals: dict[str, Any] = {}
    from_harness = _harness_reader(harness, state, send, note, finder, originals)
    carry_out = _carrier(state, originals, places, rules[1], refusals)
    watch = _watcher(state, where_, finder, refuse, refusals, rules[1])
    return _hook(state, refuse, carry_out, from_harness, watch)


def _sender(
    key: bytearray, reply_fd: int, state: dict[str, Any]
) -> Callable[[dict[str, Any]], None]:
    """What writes one line of the reply: numbered, signed, whole."""
    # OpenSSL's HMAC, a C object whose methods no submission can rebind (hmac.HMAC's could be).
    copy = _hashlib.hmac_new(bytes(key), digestmod="sha256").copy
    key[:] = bytes(len(key))  # zeroed where it lies
    write = os.write

    def send(line: dict[str, Any]) -> None:
        line["n"] = state["n"]
        state["n"] += 1
        body = _encode(line).encode()
        mac = copy()
        mac.update(body)
        data = mac.hexdigest().encode() + b" " + body + b"\n"
        view = memoryview(data)
        while view:
            view = view[write(reply_fd, view) :]

    return send


def _noter(
    send: Callable[[dict[str, Any]], None], state: dict[str, Any], trusted: tuple[str, ...]
) -> Callable[[str, str, FrameType | None], None]:
    """What notes a refusal for the report's integrity section, where it happened: at most
    MAX_NOTES a part."""

    def note(kind: str, what: str, frame: FrameType | None) -> None:
        if state["notes"] >= MAX_NOTES:
            return
        state["notes"] += 1
        send({"event": kind, "what": what[:300], "where": where(frame, trusted, _OWN_FILES)})

    return note


def _refusals(note: Callable[[str, str, FrameType | None], None]) -> _Refusals:
    """What refuses an event, noted, by raising in the code that caused it."""

    def refuse_now(
        what: str,
        frame: FrameType | None,
        noted: str = "",
        error: type[Exception] = PermissionError,
    ) -> None:
        note("integrity", noted or f"used {what}, which is refused while it is graded", frame)
        raise error(f"{what} is not allowed while your code is graded")

    def refuse_c(kind: str, name: str, frame: FrameType | None) -> None:
        noted = f"tried to load the {kind} {name}, which its exercise does not allow"
        refuse_now(f"the {kind} {name}", frame, noted, ImportError)

    return refuse_now, refuse_c


def _import_refusal(
    state: dict[str, Any],
    note: Callable[[str, str, FrameType | None], None],
    trusted: tuple[str, ...],
    rules: _Rules,
) -> Callable[[str, FrameType | None, bool], str | ImportError | None]:
    """What answers an import the submission may not have."""
    permits, extensions, refusal, own = rules

    def refuse(name: str, frame: FrameType | None, raw: bool) -> str | ImportError | None:
        """A placeholder's refusal for the submission's own asking, an ImportError for the
        library's asking of a C module the exercise refuses; None to go on."""
        if not state["student"] or name.partition(".")[0] in own:
            return None
        refused_c = name in _C_MODULES and not extensions(name)
        if not refused_c and (permits is None or permits(name)):
            return None
        by = asker(frame, _OWN_FILES)
        statement = stmt_import(by) if raw else None
        if (
            by is None
            or inside(text(by.f_code.co_filename), trusted)
            or (statement is not None and statement != name)
        ):
            # The standard library importing what it needs, or C code under an import statement
            # of another module (the interpreter opening a file imports _io): not the
            # submission's asking.
            return ImportError(refusal(name)) if refused_c else None
        note("import_refused", name, by)
        return refusal(_refused_part(name, permits))

    return refuse


def _harness_reader(
    harness: FrameType,
    state: dict[str, Any],
    send: Callable[[dict[str, Any]], None],
    note: Callable[[str, str, FrameType | None], None],
    finder: Finder,
    originals: dict[str, Any],
) -> Callable[[], None]:
    """What sends the harness's `event`, read from its frame, and acts on the harness's own
    events: the submission starts, a second part's probes are compiled."""
    getframe, compile_ = sys._getframe, compile
    begin = _beginning(state, finder, originals)

    def from_harness() -> None:
        caller = getframe(3)  # from_harness, look, hook: then whoever raised the event
        if caller is not harness:  # the submission, or something it set up, asked: nothing sent
            if state["student"]:
                note("integrity", "tried to write the grader's reply", caller)
            return
        event = caller.f_locals.get("event")
        if event is None or event is state["last"]:
            return
        state["last"] = event
        kind, fields = event
        if kind == "compile":  # a second part's probes (grader.run.child.child), with own notes
            fields["into"][:] = _compiled(fields["probes"], compile_)
            state["notes"] = 0
        if kind == "student":
            begin()
            return
        if kind in _KINDS:
            try:
                send({"event": kind, **fields})
            except (TypeError, RecursionError):  # not plain data: the run ends unfinished
                pass

    return from_harness


def _compiled(probes: Any, compile_: Any) -> list[Any]:
    """Each probe (name, code, observations) compiled, as grader.run.child.execute.compile_probe
    compiles one."""
    made = []
    for name, code, observe in probes:
        filename = f"<probe {name}>"
        statements = compile_(code, filename, "exec", 0, True)
        expressions = []
        for label, expression in observe.items():
            expressions.append((label, compile_(expression, filename, "eval", 0, True)))
        made.append((name, statements, tuple(expressions)))
    return made


def _beginning(
    state: dict[str, Any], finder: Finder, originals: dict[str, Any]
) -> Callable[[], None]:
    """What the guard does as the submission starts: from then on it refuses, and it imports."""
    swaps = (
        ("_signal", "signal", guarded_signal),
        ("_imp", "create_builtin", guarded_create_builtin),
        ("_imp", "create_dynamic", guarded_create_dynamic),
    )
    wrap = wrap_import

    def begin() -> None:
        state["student"] = True
        sys.meta_path.insert(0, finder)
        builtins.__import__ = wrap(builtins.__import__)
        # The originals are held here alone; the wrappers ask for them through the hook.
        for module_name_, attribute, wrapper in swaps:
            module: Any = sys.modules.get(module_name_)
            if module is not None:
                originals[attribute] = getattr(module, attribute)
                setattr(module, attribute, wrapper)

    return begin


def _carrier(
    state: dict[str, Any],
    originals: dict[str, Any],
    places: Places,
    extensions: Callable[[str], bool],
    refusals: _Refusals,
) -> Callable[[str, tuple[Any, ...]], tuple[Callable[..., Any], tuple[Any, ...]]]:
    """What a wrapper asks the hook to do with an original only it holds."""
    getframe, namespace_type, frameless = sys._getframe, types.SimpleNamespace, wrap_handler
    refuse_now, refuse_c = refusals

    def carry_out(event: str, args: tuple[Any, ...]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """The original and its checked arguments, which `hook` calls once it has left (a
        module's init may import, and those imports are looked at). Nothing of the submission's
        runs here (a handler is only wrapped, a spec is only read for its exact name)."""
        if event == SIGNAL:
            signalnum, handler = args
            # Only exact ints and a wrapped handler reach the original: the original would call a
            # number's __index__, the submission's code, here inside the hook, where its own
            # events are not looked at.
            if not issubclass(type(signalnum), int) or not (
                callable(handler) or type(handler) is int
            ):
                raise TypeError("signal.signal() takes a signal number and a handler")
            number = int.__index__(signalnum)
            given = frameless(handler) if callable(handler) else int.__index__(handler)
            return originals["signal"], (number, given)
        name = text(args[0])
        if event == DYNAMIC:
            origin = text(args[1])
            if state["student"] and (not extensions(name) or trusted_file(origin, places) is None):
                refuse_c("C extension", name, getframe(3))
            return originals["create_dynamic"], (namespace_type(name=name, origin=origin),)
        if state["student"] and name in ("_signal", "_imp"):
            refuse_now(f"a fresh {name} module", getframe(3))
        if state["student"] and not extensions(name):
            refuse_c("built-in module", name, getframe(3))
        return originals["create_builtin"], (namespace_type(name=name),)

    return carry_out


def _watcher(
    state: dict[str, Any],
    where_: _Where,
    finder: Finder,
    refuse: Callable[[str, FrameType | None, bool], str | ImportError | None],
    refusals: _Refusals,
    extensions: Callable[[str], bool],
) -> Callable[[str, tuple[Any, ...], FrameType | None], None]:
    """What looks at every other event once the submission runs: first what reaches into the
    grader's side of the process, then what loads code."""
    trusted, _, grader = where_
    reaching = _reaching(trusted, grader, refusals)
    loading = _loading(where_, finder, refuse, refusals, extensions)

    def watch(event: str, args: tuple[Any, ...], frame: FrameType | None) -> None:
        reaching(event, args, frame)
        loading(event, args, frame)

    return watch


def _reaching(
    trusted: tuple[str, ...], grader: str, refusals: _Refusals
) -> Callable[[str, tuple[Any, ...], FrameType | None], None]:
    """What refuses the events that reach into the grader's side: refused events, frames, the
    grader's functions' defaults, a function's code swapped."""
    stdlib = os.path.dirname(os.__file__) + "/"
    refuse_now, _ = refusals

    def grader_function(value: object) -> bool:
        if type(value) is not _FUNCTION:
            return False
        return text(value.__code__.co_filename).startswith(grader)

    def reaching(event: str, args: tuple[Any, ...], frame: FrameType | None) -> None:
        if event in _REFUSED or event.startswith("ctypes."):
            refuse_now(_REFUSED.get(event, "ctypes"), frame)
        # Every argument is read as exact data: a submission may call sys.audit itself, with
        # objects whose __eq__ or __hash__ would otherwise run here.
        attribute = text(args[1]) if len(args) > 1 else ""
        if event == "sys._getframe" or (
            event == "object.__getattr__" and attribute in _FRAME_ATTRIBUTES
        ):
            if not frames_allowed(frame, trusted, stdlib, _OWN_FILES):
                refuse_now("a frame object (sys._getframe, a traceback's tb_frame)", frame)
        setting = event == "object.__setattr__"
        if (
            (setting or event == "object.__getattr__")
            and args
            and grader_function(args[0])
            and (setting or attribute in ("__defaults__", "__kwdefaults__"))
        ):
            owner = text(args[0].__qualname__)
            refuse_now(f"the grader's function {owner}'s {attribute}", frame)
        if setting and attribute == "__code__" and type(args[0]) is _FUNCTION:
            refuse_now("replacing a function's __code__", frame, "replaced a function's code")

    return reaching


def _loading(
    where_: _Where,
    finder: Finder,
    refuse: Callable[[str, FrameType | None, bool], str | ImportError | None],
    refusals: _Refusals,
    extensions: Callable[[str], bool],
) -> Callable[[str, tuple[Any, ...], FrameType | None], None]:
    """What refuses code loaded that is not what it claims: bytecode, source under a library's
    name, a C extension, a refused module's own code."""
    trusted, places, _ = where_
    refuse_now, refuse_c = refusals
    thread = _thread.get_ident
    opened: dict[int, str] = {}  # each thread's last .pyc opened: what marshal.loads may be handed

    def loading(event: str, args: tuple[Any, ...], frame: FrameType | None) -> None:
        if event == "open" and args and text(args[0]).endswith(".pyc"):
            opened[thread()] = text(args[0])
        if event == "marshal.loads" and not (
            args and is_file(opened.pop(thread(), ""), args[0], places, 16)
        ):
            refuse_now(
                "loading bytecode that is not a library file's",
                frame,
                "tried to load bytecode of its own (marshal)",
            )
        if event == "marshal.load":
            refuse_now("marshal.load()", frame, "tried to load bytecode of its own (marshal.load)")
        if event == "compile" and len(args) > 1:
            _compiling(args, frame, trusted, places, refuse_now)
        if event == "import" and len(args) > 1 and args[1] is not None:  # C, however loaded
            name = text(args[0])
            if not extensions(name) or trusted_file(text(args[1]), places) is None:
                refuse_c("C extension", name, frame)
        # A refused module's own code never runs, whatever happened to the finder; with the
        # finder gone from the front of sys.meta_path, the import itself is refused too.
        path = sys.meta_path
        first = type(path) is list and len(path) > 0 and path[0] is finder
        name_: str | None = None
        if event == "exec" and args:
            name_ = module_name(args[0], trusted)
        elif event == "import" and args and not first:
            name_ = text(args[0])
        if name_ is not None:
            refused = refuse(name_, frame, False)
            if type(refused) is str:
                raise ImportError(refused)

    return loading


def _compiling(
    args: tuple[Any, ...],
    frame: FrameType | None,
    trusted: tuple[str, ...],
    places: Places,
    refuse_now: Callable[..., None],
) -> None:
    """Refuses code compiled under the name of a library's or the grader's file that is not
    that file's."""
    given = args[1]
    if type(given) is bytes:
        filename = given.decode("utf-8", "surrogateescape")
    else:
        filename = text(given)
    claimed = (
        filename in _OWN_FILES or filename.startswith(_TRUSTED_NAMES) or inside(filename, trusted)
    )
    if claimed and not is_file(filename, args[0], places):
        refuse_now(
            f"compiling code under the name {filename[:80]}",
            frame,
            "tried to compile code under the name of a file of the library's or the "
            f"grader's ({filename[:80]})",
        )


def _hook(
    state: dict[str, Any],
    refuse: Callable[[str, FrameType | None, bool], str | ImportError | None],
    carry_out: Callable[[str, tuple[Any, ...]], tuple[Callable[..., Any], tuple[Any, ...]]],
    from_harness: Callable[[], None],
    watch: Callable[[str, tuple[Any, ...], FrameType | None], None],
) -> Hook:
    """The hook itself: what it asks of itself is not looked at, and an original a wrapper asks
    for runs once it has left."""
    getframe, thread = sys._getframe, _thread.get_ident
    inside_hook: set[int] = set()  # threads running the hook now

    def look(event: str, args: tuple[Any, ...]) -> Any:
        if event == ASK:
            name, raw, answer = args
            if type(answer) is list and len(answer) == 1:
                answer[0] = refuse(text(name), getframe(2), raw is True)
            return None
        if event in (SIGNAL, BUILTIN, DYNAMIC):
            *asked, answer = args
            if type(answer) is list and len(answer) == 1:
                try:
                    return answer, *carry_out(event, tuple(asked))
                except Exception as exc:  # noqa: BLE001 - handed back, as the original would raise
                    answer[0] = exc
            return None
        if event == EVENT:
            from_harness()
            return None
        if not state["student"]:
            return None
        watch(event, args, getframe(2))
        return None

    def hook(event: str, args: tuple[Any, ...]) -> None:
        me = thread()
        if me in inside_hook:
            return
        inside_hook.add(me)
        try:
            call = look(event, args)
        finally:
            inside_hook.discard(me)
        if call is not None:  # an original, run with its own events looked at
            answer, original, arguments = call
            try:
                answer[0] = original(*arguments)
            except Exception as exc:  # noqa: BLE001 - handed back, as the original would raise
                answer[0] = exc

    return hook


def _refused_part(name: str, permits: Callable[[str], bool] | None) -> str:
    """The part of a dotted name the exercise refuses (`grader` for grader.run.x; `http.client`
    for http.client.y)."""
    parts = name.split(".")
    for n in range(1, len(parts)):
        if permits is not None and not permits(".".join(parts[:n])):
            return ".".join(parts[:n])
    return name


def _encode(value: object, depth: int = 0) -> str:
    """JSON of exact built-in types only, written here (json.dumps is Python that looks builtins
    up as it runs, which a submission may have rebound): nothing of the submission's runs while a
    line is made."""
    kind = type(value)
    if depth > 40:
        raise RecursionError("nested too deep")
    if isinstance(value, str) and kind is str:
        return _escape(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return _number(value)  # type: ignore[arg-type]
    if kind is list or kind is tuple:
        items = [_encode(v, depth + 1) for v in value]  # type: ignore[attr-defined]
        return "[" + ",".join(items) + "]"
    if kind is dict:
        pairs = value.items()  # type: ignore[attr-defined]
        if not all(type(k) is str for k, _ in pairs):
            raise TypeError("keys must be text")
        members = [_escape(k) + ":" + _encode(v, depth + 1) for k, v in pairs]
        return "{" + ",".join(members) + "}"
    raise TypeError(f"not plain data: {kind.__name__}")


def _number(number: float) -> str:
    if number != number:
        return "NaN"
    if number == _INF:
        return "Infinity"
    if number == -_INF:
        return "-Infinity"
    return float.__repr__(number)
