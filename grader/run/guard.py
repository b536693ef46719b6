"""The child's guard: an audit hook, installed before any submission code runs, that nothing can remove.

It does three things.
- It is the only writer of the reply. Each line carries a sequence number and an HMAC under a per-run
  key that the hook alone holds (the key's bytes are zeroed once read). The hook writes only what the
  harness's own running frame holds in its local `event`, read from that frame: calling the hook from
  anywhere else writes nothing, so a submission cannot forge, reorder or complete a reply.
- Once the submission's code starts, it refuses what would let that code reach into the grader's side
  of its own process: the garbage collector's object lists, trace and profile functions, new code
  objects and bytecode read from writable places, code swapped into functions, ctypes.
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

from grader.run import guard_public
from grader.run.guard_public import (
    ASK,
    BUILTIN,
    SIGNAL,
    _create_builtin,
    _Finder,
    _frameless,
    _guarded_import,
    _signal,
)
from grader.run.guard_rules import _FRAME_ATTRIBUTES, _KINDS, _REFUSED, _TEXT_ONLY_FRAME_USERS

EVENT = "autograd-grader.run.reply"
MAC_HEX = 64
MAX_NOTES = 20
_escape = json.encoder.encode_basestring_ascii  # the C one, bound now
_INF = float("inf")
#: the guard's own files: its frames are machinery, looked through, never the submission's
_OWN_FILES = frozenset({__file__, guard_public.__file__})
_CODE = type(compile("", "", "exec"))


def install(key: bytearray, reply_fd: int, harness: FrameType, *, trusted: Sequence[str], writable: Sequence[str],
            permits: Callable[[str], bool] | None, refusal: Callable[[str], str], own_modules: Iterable[str],
            owned: Sequence[str] = ()) -> None:
    """Install the hook; `harness` is the frame whose `event` local says what to send.

    `trusted`: folders whose code is not the submission's (the standard library, packages, the grader);
    `writable`: where the submission may write, so bytecode from there is never loaded unless it lies on a
    read-only mount or is plainly another user's; `owned`: where all it holds may be the submission's (its
    own folder in landlock mode, where it opens files as root), so nothing from there is; `permits`:
    whether the submission may import a module (None: anything); `own_modules`: the submission's own
    files, importable by it.

    The hook, the key and the state live in closures of functions built over a private copy of this
    module's globals and builtins: nothing a submission can reach (this module, the finder, the
    placeholders, builtins) refers to them, so none of it can be rebound to change what the hook does.
    """
    private = _private_namespace()
    make = types.FunctionType(_make_hook.__code__, private, "_make_hook")
    # What the hook hands out (the import wrapper, the signal wrapper) is built from this module's own
    # functions, never the private copies, whose globals would lead back to the hook's.
    sys.addaudithook(make(key, reply_fd, harness, tuple(trusted), (tuple(writable), tuple(owned)), permits, refusal,
                          frozenset(own_modules), (_guarded_import, _signal, _create_builtin, _frameless)))
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
               written: tuple[tuple[str, ...], tuple[str, ...]], permits: Callable[[str], bool] | None,
               refusal: Callable[[str], str],
               own: frozenset[str], public: tuple[Callable[..., Any], ...],
               ) -> Callable[[str, tuple[Any, ...]], None]:
    # OpenSSL's HMAC, a C object whose methods no submission can rebind (hmac.HMAC's could be).
    copy = _hashlib.hmac_new(bytes(key), digestmod="sha256").copy
    for i in range(len(key)):
        key[i] = 0
    write, getframe, thread = os.write, sys._getframe, _thread.get_ident
    function_type, realpath = types.FunctionType, os.path.realpath
    access, can_write, lstat, statvfs, read_only_flag = os.access, os.W_OK, os.lstat, os.statvfs, os.ST_RDONLY
    me = os.getuid()
    writable, owned = written

    def may_write(path: str) -> bool:
        # Not os.access alone, which asks the mode: a run owns what it made, whatever its mode (a 0444 .pyc
        # in a 0555 folder); nothing on a read-only mount was written by it.
        try:
            return not statvfs(path).f_flag & read_only_flag and (access(path, can_write) or lstat(path).st_uid == me)
        except OSError:
            return True

    stdlib = os.path.dirname(os.__file__) + "/"
    finder = _Finder()
    guarded_import, signal_wrapper, create_wrapper, frameless = public
    namespace_type = types.SimpleNamespace
    originals: dict[str, Any] = {}
    state: dict[str, Any] = {"n": 0, "last": None, "student": False, "notes": 0}
    inside: set[int] = set()  # threads now running the hook: what the hook itself asks for is not looked at

    def refuse(name: str, frame: FrameType | None) -> str | None:
        """The refusal for an import the submission's own code asked for and may not have; None otherwise."""
        if not state["student"] or permits is None or permits(name) or name.partition(".")[0] in own:
            return None
        asker = _asker(frame)
        if asker is None or _inside(_text(asker.f_code.co_filename), trusted):
            return None  # the standard library importing what it needs
        note("import_refused", name, asker)
        return refusal(name)

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

    def note(kind: str, text: str, frame: FrameType | None) -> None:
        if state["notes"] >= MAX_NOTES:
            return
        state["notes"] += 1
        send({"event": kind, "what": text[:300], "where": _where(frame, trusted)})

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
        if kind == "student":
            state["student"] = True
            sys.meta_path.insert(0, finder)
            builtins.__import__ = guarded_import(builtins.__import__)
            # The originals are held here alone; the wrappers ask for them through the hook.
            for module_name, attribute, wrapper in (("_signal", "signal", signal_wrapper),
                                                    ("_imp", "create_builtin", create_wrapper)):
                module: Any = sys.modules.get(module_name)
                if module is not None:
                    originals[module_name] = getattr(module, attribute)
                    setattr(module, attribute, wrapper)
            return
        if kind in _KINDS:
            try:
                send({"event": kind, **fields})
            except (TypeError, RecursionError):  # not plain data: nothing half-written, the run ends unfinished
                pass

    def refuse_now(what: str, frame: FrameType | None, noted: str = "") -> None:
        note("integrity", noted or f"used {what}, which is refused while it is graded", frame)
        raise PermissionError(f"{what} is not allowed while your code is graded")

    def carry_out(event: str, args: tuple[Any, ...]) -> Any:
        """What a wrapper asks the hook to do with an original only it holds; nothing of the submission's
        runs here (a handler is only wrapped, a spec is only read for its exact name)."""
        if event == SIGNAL:
            signalnum, handler = args
            # Only exact ints and a wrapped handler reach the original: the original would call a number's
            # __index__, the submission's code, here inside the hook, where its own events are not looked at.
            if not issubclass(type(signalnum), int) or not (callable(handler) or type(handler) is int):
                raise TypeError("signal.signal() takes a signal number and a handler")
            number = int.__index__(signalnum)
            return originals["_signal"](number, frameless(handler) if callable(handler) else int.__index__(handler))
        name = _text(args[0])
        if state["student"] and name in ("_signal", "_imp"):
            refuse_now(f"a fresh {name} module", getframe(3))
        return originals["_imp"](namespace_type(name=name))

    def look(event: str, args: tuple[Any, ...]) -> None:
        if event == ASK:
            name, answer = args
            if type(answer) is list and len(answer) == 1:
                answer[0] = refuse(_text(name), getframe(2))
            return
        if event in (SIGNAL, BUILTIN):
            *asked, answer = args
            if type(answer) is list and len(answer) == 1:
                try:
                    answer[0] = carry_out(event, tuple(asked))
                except Exception as exc:  # noqa: BLE001 - handed back to the caller, as the original would raise it
                    answer[0] = exc
            return
        if event == EVENT:
            from_harness()
            return
        if not state["student"]:
            return
        if event in _REFUSED or event.startswith("ctypes."):
            refuse_now(_REFUSED.get(event, "ctypes"), getframe(2))
        # Every argument is read as exact data: a submission may call sys.audit itself, with objects whose
        # __eq__ or __hash__ would otherwise run here.
        attribute = _text(args[1]) if len(args) > 1 else ""
        if event == "sys._getframe" or (event == "object.__getattr__" and attribute in _FRAME_ATTRIBUTES):
            if not _frames_allowed(getframe(2), trusted, stdlib):
                refuse_now("a frame object (sys._getframe, a traceback's tb_frame)", getframe(2))
        if event == "object.__setattr__" and attribute == "__code__" and type(args[0]) is function_type:
            refuse_now("replacing a function's __code__", getframe(2), "replaced a function's code")
        if event in ("marshal.loads", "marshal.load") and not _trusted_bytecode(getframe(2), writable, owned,
                                                                                   realpath, may_write):
            refuse_now("loading bytecode", getframe(2), "loaded bytecode from a place it can write")
        # A refused module's own code never runs, whatever happened to the finder; with the finder gone
        # from the front of sys.meta_path, the import itself is refused too.
        path = sys.meta_path
        first = type(path) is list and len(path) > 0 and path[0] is finder
        name = (_module_name(args[0], trusted) if event == "exec" and args
                else _text(args[0]) if event == "import" and args and not first else None)
        if name is not None:
            refused = refuse(name, getframe(2))
            if refused is not None:
                raise ImportError(refused)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        me = thread()
        if me in inside:
            return
        inside.add(me)
        try:
            look(event, args)
        finally:
            inside.discard(me)

    return hook


def _text(value: object) -> str:
    """Exact text of a str (or its subclass, whose methods are never called here); '' for anything else."""
    return str.__str__(value) if issubclass(type(value), str) else ""


def _frames_allowed(frame: FrameType | None, trusted: Sequence[str], stdlib: str) -> bool:
    """Whether a frame may be handed out here: asked for by the grader, a package, or a library function
    that keeps only text of it; never by the submission, directly or through the standard library."""
    while frame is not None:
        code = frame.f_code
        filename = _text(code.co_filename)
        library = filename.startswith(stdlib) and "-packages/" not in filename
        if library and (filename[len(stdlib):], code.co_name) in _TEXT_ONLY_FRAME_USERS:
            return True
        if not (library or filename.startswith("<frozen ") or filename in _OWN_FILES):
            return _inside(filename, trusted)
        frame = frame.f_back
    return True


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


def _asker(frame: FrameType | None) -> FrameType | None:
    while frame is not None and _machinery(_text(frame.f_code.co_filename)):
        frame = frame.f_back
    return frame


def _machinery(filename: str) -> bool:
    """Import machinery, looked through to find who asked for a module (this module's import hook too)."""
    return filename.startswith(("<frozen importlib.", "<frozen zipimport>")) or "/importlib/" in filename \
        or filename.endswith(("/pkgutil.py", "/runpy.py")) or filename in _OWN_FILES


def _module_name(code: object, trusted: Sequence[str]) -> str | None:
    """The module a module's code object belongs to, from its file under one of the `trusted` folders."""
    if type(code) is not _CODE or code.co_name != "<module>":
        return None
    filename = _text(code.co_filename)
    for folder in trusted:
        prefix = folder.rstrip("/") + "/"
        if filename.startswith(prefix) and filename.endswith(".py"):
            parts = filename[len(prefix):-3].split("/")
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def _inside(filename: str, folders: Sequence[str]) -> bool:
    return filename.startswith(("<probe ", "<frozen ")) or any(filename.startswith(f.rstrip("/") + "/")
                                                                for f in folders)


def _trusted_bytecode(frame: FrameType | None, writable: Sequence[str], owned: Sequence[str],
                      realpath: Callable[[str], str], may_write: Callable[[str], bool]) -> bool:
    """marshal.loads called by the import system for a module from a place the submission cannot write: outside
    the scratch folders, or on a read-only mount inside them (a checkout or virtual environment under /tmp is
    bound read-only into the child's tree), or another user's there; never from a folder it `owned`."""
    if frame is None or frame.f_code.co_name != "_compile_bytecode":
        return False
    path = frame.f_locals.get("bytecode_path") or frame.f_locals.get("source_path") or ""
    path = _text(path)
    if not path:
        return False
    real = realpath(path)
    if any(real.startswith(w.rstrip("/") + "/") for w in owned):
        return False
    if not any(real.startswith(w.rstrip("/") + "/") for w in writable):
        return True
    return not may_write(real) and not may_write(real.rpartition("/")[0] or "/")


def _where(frame: FrameType | None, trusted: Sequence[str]) -> str:
    """The submission's line that did it: the innermost frame that is not the grader's or the library's."""
    while frame is not None and (_inside(_text(frame.f_code.co_filename), trusted)
                                 or _machinery(_text(frame.f_code.co_filename))):
        frame = frame.f_back
    if frame is None:
        return ""
    return f"{_text(frame.f_code.co_filename)}:{frame.f_lineno}"
