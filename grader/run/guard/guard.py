"""The child's guard: an audit hook, installed before any submission code runs, that nothing can remove.

It does three things.
- It is the only writer of the reply. Each line carries a sequence number and an HMAC under a per-run
  key that the hook alone holds (the key's bytes are zeroed once read). The hook writes only what the
  harness's own running frame holds in its local `event`, read from that frame: calling the hook from
  anywhere else writes nothing, so a submission cannot forge, reorder or complete a reply.
- Once the submission's code starts, it refuses what would let that code reach into the grader's side
  of its own process: the garbage collector's object lists, trace and profile functions, new code objects,
  bytecode or source that claims a library file's name but is not that file's, code swapped into functions,
  a grader function's defaults, ctypes, subinterpreters (which run without this hook), and any C extension
  its exercise does not allow, however it is loaded (an import, `_imp.create_dynamic`, ExtensionFileLoader).
  Each refusal is noted for the report's integrity section.
- It enforces the exercise's imports: a module the submission itself imports that the exercise does
  not allow becomes a placeholder that fails when used (and the report says where it was imported).

In a zygote with torch or numpy loaded, a submission can still read and write its own memory through
them (numpy's array interface, for one); the tree, namespaces, uid and limits hold regardless.
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
from typing import Any

from grader.run.guard import guard_public
from grader.run.guard.guard_code import (
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
    _create_builtin,
    _create_dynamic,
    _Finder,
    _frameless,
    _guarded_import,
    _signal,
)
from grader.run.guard.guard_rules import _FRAME_ATTRIBUTES, _KINDS, _REFUSED, _TRUSTED_NAMES
from grader.run.policy import STDLIB_EXTENSIONS as _C_MODULES

EVENT = "autograd-grader.run.reply"
MAC_HEX = 64
MAX_NOTES = 20
_escape = json.encoder.encode_basestring_ascii  # the C one, bound now
_INF = float("inf")
#: the guard's own files: its frames are machinery, looked through, never the submission's
_OWN_FILES = frozenset({__file__, guard_public.__file__})
_FUNCTION = types.FunctionType


def install(key: bytearray, reply_fd: int, harness: FrameType, *, trusted: Sequence[str], writable: Sequence[str],
            permits: Callable[[str], bool] | None, extensions: Callable[[str], bool], refusal: Callable[[str], str],
            own_modules: Iterable[str], grader: str, owned: Sequence[str] = ()) -> None:
    """Install the hook; `harness` is the frame whose `event` local says what to send.

    `trusted`: folders whose code is not the submission's (the standard library, packages, the grader);
    `writable`: where the submission may write, so code from there never claims to be a library's unless it
    lies on a read-only mount or is plainly another user's; `owned`: where all it holds may be the
    submission's (its own folder in landlock mode, where it opens files as root), so nothing from there is;
    `permits`: whether the submission may import a module (None: anything); `extensions`: whether a C
    extension may be loaded at all, by anyone; `own_modules`: the submission's own files, importable by it;
    `grader`: the grader package's folder, whose functions' defaults no submission may read or set.

    The hook, the key and the state live in closures of functions built over a private copy of this
    module's globals and builtins: nothing a submission can reach (this module, the finder, the
    placeholders, builtins) refers to them, so none of it can be rebound to change what the hook does.
    """
    private = _private_namespace()
    make = types.FunctionType(_make_hook.__code__, private, "_make_hook")
    # What the hook hands out (the import wrapper, the signal wrapper) is built from this module's own
    # functions, never the private copies, whose globals would lead back to the hook's.
    sys.addaudithook(make(key, reply_fd, harness, tuple(trusted), (tuple(writable), tuple(owned)), permits,
                          extensions, refusal, frozenset(own_modules), grader.rstrip("/") + "/",
                          (_guarded_import, _signal, _create_builtin, _create_dynamic, _frameless)))
    sys.dont_write_bytecode = True


def _private_namespace() -> dict[str, Any]:
    here = globals()
    private = dict(here)
    private["__builtins__"] = dict(builtins.__dict__)
    for name, value in here.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is here:
            private[name] = types.FunctionType(value.__code__, private, value.__name__, value.__defaults__,
                                               value.__closure__)
        elif type(value) in (dict, list, set):
            private[name] = type(value)(value)
    return private


def _make_hook(key: bytearray, reply_fd: int, harness: FrameType, trusted: tuple[str, ...],
               writable: tuple[tuple[str, ...], tuple[str, ...]], permits: Callable[[str], bool] | None,
               extensions: Callable[[str], bool], refusal: Callable[[str], str], own: frozenset[str], grader: str,
               public: tuple[Callable[..., Any], ...]) -> Callable[[str, tuple[Any, ...]], None]:
    # OpenSSL's HMAC, a C object whose methods no submission can rebind (hmac.HMAC's could be).
    copy = _hashlib.hmac_new(bytes(key), digestmod="sha256").copy
    key[:] = bytes(len(key))  # zeroed where it lies
    write, getframe, thread, compile_ = os.write, sys._getframe, _thread.get_ident, compile
    stdlib = os.path.dirname(os.__file__) + "/"
    finder = _Finder()
    guarded_import, signal_wrapper, create_wrapper, dynamic_wrapper, frameless = public
    namespace_type = types.SimpleNamespace
    originals: dict[str, Any] = {}
    state: dict[str, Any] = {"n": 0, "last": None, "student": False, "notes": 0}
    inside_hook: set[int] = set()  # threads now running the hook: what the hook itself asks for is not looked at
    opened: dict[int, str] = {}  # each thread's last .pyc opened: what marshal.loads may be handed

    def refuse(name: str, frame: FrameType | None, raw: bool) -> str | ImportError | None:
        """The answer on an import the submission may not have: a placeholder's refusal for its own asking, an
        ImportError for the library's asking of a C module the exercise refuses; None to go on."""
        if not state["student"] or name.partition(".")[0] in own:
            return None
        refused_c = name in _C_MODULES and not extensions(name)
        if not refused_c and (permits is None or permits(name)):
            return None
        by = asker(frame, _OWN_FILES)
        statement = stmt_import(by) if raw else None
        if by is None or inside(text(by.f_code.co_filename), trusted) or (statement is not None
                                                                         and statement != name):
            # The standard library importing what it needs, or C code under an import statement of another
            # module (the interpreter opening a file imports _io): not the submission's asking.
            return ImportError(refusal(name)) if refused_c else None
        note("import_refused", name, by)
        return refusal(_refused_part(name, permits))

    def send(line: dict[str, Any]) -> None:
        line["n"] = state["n"]
        state["n"] += 1
        body = _encode(line).encode()
        mac = copy()
        mac.update(body)
        data = mac.hexdigest().encode() + b" " + body + b"\n"
        view = memoryview(data)
        while view:
            view = view[write(reply_fd, view):]

    def note(kind: str, what: str, frame: FrameType | None) -> None:
        if state["notes"] >= MAX_NOTES:
            return
        state["notes"] += 1
        send({"event": kind, "what": what[:300], "where": where(frame, trusted, _OWN_FILES)})

    def from_harness() -> None:
        caller = getframe(3)
        if caller is not harness:  # the submission, or something it set up, asked: nothing is sent
            if state["student"]:
                note("integrity", "tried to write the grader's reply", caller)
            return
        event = caller.f_locals.get("event")
        if event is None or event is state["last"]:
            return
        state["last"] = event
        kind, fields = event
        if kind == "compile":  # a second part's probes (grader.run.child.child), compiled in the hook; its own notes
            fields["into"][:], state["notes"] = [(n, compile_(c, f"<probe {n}>", "exec", 0, True), tuple((k, compile_(
                e, f"<probe {n}>", "eval", 0, True)) for k, e in o.items())) for n, c, o in fields["probes"]], 0
        if kind == "student":
            state["student"] = True
            sys.meta_path.insert(0, finder)
            builtins.__import__ = guarded_import(builtins.__import__)
            # The originals are held here alone; the wrappers ask for them through the hook.
            for module_name_, attribute, wrapper in (("_signal", "signal", signal_wrapper),
                                                     ("_imp", "create_builtin", create_wrapper),
                                                     ("_imp", "create_dynamic", dynamic_wrapper)):
                module: Any = sys.modules.get(module_name_)
                if module is not None:
                    originals[attribute] = getattr(module, attribute)
                    setattr(module, attribute, wrapper)
            return
        if kind in _KINDS:
            try:
                send({"event": kind, **fields})
            except (TypeError, RecursionError):  # not plain data: nothing half-written, the run ends unfinished
                pass

    def refuse_now(what: str, frame: FrameType | None, noted: str = "", error: type[Exception] = PermissionError,
                   ) -> None:
        note("integrity", noted or f"used {what}, which is refused while it is graded", frame)
        raise error(f"{what} is not allowed while your code is graded")

    def refuse_c(kind: str, name: str, frame: FrameType | None) -> None:
        refuse_now(f"the {kind} {name}", frame, f"tried to load the {kind} {name}, which its exercise does not allow",
                   ImportError)

    def carry_out(event: str, args: tuple[Any, ...]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """What a wrapper asks the hook to do with an original only it holds: the original and its checked
        arguments, which `hook` calls once it has left (a module's init may import, and those imports are
        looked at). Nothing of the submission's runs here (a handler is only wrapped, a spec is only read for
        its exact name)."""
        if event == SIGNAL:
            signalnum, handler = args
            # Only exact ints and a wrapped handler reach the original: the original would call a number's
            # __index__, the submission's code, here inside the hook, where its own events are not looked at.
            if not issubclass(type(signalnum), int) or not (callable(handler) or type(handler) is int):
                raise TypeError("signal.signal() takes a signal number and a handler")
            number = int.__index__(signalnum)
            return originals["signal"], (number, frameless(handler) if callable(handler) else int.__index__(handler))
        name = text(args[0])
        if event == DYNAMIC:
            origin = text(args[1])
            if state["student"] and (not extensions(name) or trusted_file(origin, writable) is None):
                refuse_c("C extension", name, getframe(3))
            return originals["create_dynamic"], (namespace_type(name=name, origin=origin),)
        if state["student"] and name in ("_signal", "_imp"):
            refuse_now(f"a fresh {name} module", getframe(3))
        if state["student"] and not extensions(name):
            refuse_c("built-in module", name, getframe(3))
        return originals["create_builtin"], (namespace_type(name=name),)

    def grader_function(value: object) -> bool:
        return type(value) is _FUNCTION and text(value.__code__.co_filename).startswith(grader)

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
                except Exception as exc:  # noqa: BLE001 - handed back to the caller, as the original would raise it
                    answer[0] = exc
            return None
        if event == EVENT:
            from_harness()
            return None
        if not state["student"]:
            return None
        frame = getframe(2)
        if event in _REFUSED or event.startswith("ctypes."):
            refuse_now(_REFUSED.get(event, "ctypes"), frame)
        # Every argument is read as exact data: a submission may call sys.audit itself, with objects whose
        # __eq__ or __hash__ would otherwise run here.
        attribute = text(args[1]) if len(args) > 1 else ""
        if event == "sys._getframe" or (event == "object.__getattr__" and attribute in _FRAME_ATTRIBUTES):
            if not frames_allowed(frame, trusted, stdlib, _OWN_FILES):
                refuse_now("a frame object (sys._getframe, a traceback's tb_frame)", frame)
        if event in ("object.__getattr__", "object.__setattr__") and args and grader_function(args[0]) and \
                (event == "object.__setattr__" or attribute in ("__defaults__", "__kwdefaults__")):
            refuse_now(f"the grader's function {text(args[0].__qualname__)}'s {attribute}", frame)
        if event == "object.__setattr__" and attribute == "__code__" and type(args[0]) is _FUNCTION:
            refuse_now("replacing a function's __code__", frame, "replaced a function's code")
        if event == "open" and args and text(args[0]).endswith(".pyc"):
            opened[thread()] = text(args[0])
        if event == "marshal.loads" and not (args and is_file(opened.pop(thread(), ""), args[0], writable, 16)):
            refuse_now("loading bytecode that is not a library file's", frame,
                       "tried to load bytecode of its own (marshal)")
        if event == "marshal.load":
            refuse_now("marshal.load()", frame, "tried to load bytecode of its own (marshal.load)")
        if event == "compile" and len(args) > 1:
            given = args[1]
            filename = given.decode("utf-8", "surrogateescape") if type(given) is bytes else text(given)
            if (filename in _OWN_FILES or filename.startswith(_TRUSTED_NAMES) or inside(filename, trusted)) \
                    and not is_file(filename, args[0], writable):
                refuse_now(f"compiling code under the name {filename[:80]}", frame, "tried to compile code under the "
                           f"name of a file of the library's or the grader's ({filename[:80]})")
        if event == "import" and len(args) > 1 and args[1] is not None:  # a C extension, whatever loads it
            name = text(args[0])
            if not extensions(name) or trusted_file(text(args[1]), writable) is None:
                refuse_c("C extension", name, frame)
        # A refused module's own code never runs, whatever happened to the finder; with the finder gone
        # from the front of sys.meta_path, the import itself is refused too.
        path = sys.meta_path
        first = type(path) is list and len(path) > 0 and path[0] is finder
        name = (module_name(args[0], trusted) if event == "exec" and args
                else text(args[0]) if event == "import" and args and not first else None)
        if name is not None:
            refused = refuse(name, frame, False)
            if type(refused) is str:
                raise ImportError(refused)
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
            except Exception as exc:  # noqa: BLE001 - handed back to the caller, as the original would raise it
                answer[0] = exc

    return hook


def _refused_part(name: str, permits: Callable[[str], bool] | None) -> str:
    """The part of a dotted name the exercise refuses (`grader` for grader.run.x; `http.client` for http.client.y)."""
    parts = name.split(".")
    for n in range(1, len(parts)):
        if permits is not None and not permits(".".join(parts[:n])):
            return ".".join(parts[:n])
    return name


def _encode(value: object, depth: int = 0) -> str:
    """JSON of exact built-in types only, written here (json.dumps is Python that looks builtins up as it
    runs, which a submission may have rebound): nothing of the submission's runs while a line is made."""
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
        number: float = value  # type: ignore[assignment]
        return "NaN" if number != number else "Infinity" if number == _INF else "-Infinity" if number == -_INF \
            else float.__repr__(number)
    if kind is list or kind is tuple:
        return "[" + ",".join([_encode(v, depth + 1) for v in value]) + "]"  # type: ignore[attr-defined]
    if kind is dict:
        items = value.items()  # type: ignore[attr-defined]
        if not all(type(k) is str for k, _ in items):
            raise TypeError("keys must be text")
        return "{" + ",".join([_escape(k) + ":" + _encode(v, depth + 1) for k, v in items]) + "}"
    raise TypeError(f"not plain data: {kind.__name__}")

