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
import builtins
import json
import os
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from importlib.machinery import ModuleSpec
from types import FrameType
from typing import Any

EVENT = "autograd-grader.reply"
MAC_HEX = 64
#: events refused once the submission runs, and what the report says about each
_REFUSED = {
    "gc.get_objects": "gc.get_objects()", "gc.get_referrers": "gc.get_referrers()",
    "gc.get_referents": "gc.get_referents()", "sys.settrace": "sys.settrace()", "sys.setprofile": "sys.setprofile()",
    "sys._current_frames": "sys._current_frames()", "sys._current_exceptions": "sys._current_exceptions()",
    "code.__new__": "making a code object", "sys.monitoring.register_callback": "sys.monitoring",
}
MAX_NOTES = 20
_escape = json.encoder.encode_basestring_ascii  # the C one, bound now
_INF = float("inf")
_THIS_FILE = __file__
_KINDS = frozenset({"ready", "cell", "cell_error", "loaded", "group", "start", "probe", "done", "crashed"})


class Placeholder(types.ModuleType):
    """What an import the exercise does not allow gives: a module whose every attribute says so."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ImportError(self.__dict__["_refusal"] + " Your import of it gave a placeholder, and this use of it "
                                                       "failed.")


class _Finder:
    """First on sys.meta_path: every fresh import asks it first; a refused one gets a placeholder."""

    def __init__(self, refuse: Callable[[str], str | None]) -> None:
        self.refuse = refuse

    def find_spec(self, fullname: str, path: object, target: object = None) -> Any:
        refusal = self.refuse(fullname)
        if refusal is None:
            return None
        spec = ModuleSpec(fullname, self, is_package=True)  # type: ignore[arg-type]
        spec.loader_state = refusal
        return spec

    def create_module(self, spec: Any) -> types.ModuleType:
        module = Placeholder(spec.name)
        module.__dict__["_refusal"] = spec.loader_state
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def install(key: bytearray, reply_fd: int, harness: FrameType, *, trusted: Sequence[str], writable: Sequence[str],
            permits: Callable[[str], bool] | None, refusal: Callable[[str], str], own_modules: Iterable[str]) -> None:
    """Install the hook; `harness` is the frame whose `event` local says what to send.

    `trusted`: folders whose code is not the submission's (the standard library, packages, the grader);
    `writable`: where the submission may write, so bytecode from there is never loaded; `permits`:
    whether the submission may import a module (None: anything); `own_modules`: the submission's own
    files, importable by it.
    """
    # OpenSSL's HMAC, a C object whose methods no submission can rebind (hmac.HMAC's could be).
    copy = _hashlib.hmac_new(bytes(key), digestmod="sha256").copy
    for i in range(len(key)):
        key[i] = 0
    write, getframe = os.write, sys._getframe
    own = frozenset(own_modules)
    state: dict[str, Any] = {"n": 0, "last": None, "student": False, "notes": 0}

    def refuse(name: str, frame: FrameType | None = None) -> str | None:
        """The refusal for an import the submission's own code asked for and may not have; None otherwise."""
        if not state["student"] or permits is None or permits(name) or name.partition(".")[0] in own:
            return None
        asker = _asker(frame or getframe(2))
        if asker is None or _inside(asker.f_code.co_filename, trusted):
            return None  # the standard library importing what it needs
        note("import_refused", name, asker)
        return refusal(name)

    finder = _Finder(refuse)
    original_import = builtins.__import__

    def guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                       level: int = 0) -> Any:
        """Every import statement: a module the interpreter had loaded already (os, io...) never reaches a
        finder, so the submission's own imports are looked at here too."""
        if level == 0 and state["student"] and name in sys.modules:
            refused = refuse(name, getframe(1))
            if refused is not None:
                module = Placeholder(name)
                module.__dict__["_refusal"] = refused
                return module
        return original_import(name, globals, locals, fromlist, level)


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
        caller = getframe(2)
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
            builtins.__import__ = guarded_import
            return
        if kind in _KINDS:
            try:
                send({"event": kind, **fields})
            except (TypeError, RecursionError):  # not plain data: nothing half-written, the run ends unfinished
                pass

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == EVENT:
            from_harness()
            return
        if not state["student"]:
            return
        if event in _REFUSED or event.startswith("ctypes."):
            what = _REFUSED.get(event, "ctypes")
            note("integrity", f"used {what}, which is refused while it is graded", getframe(1))
            raise PermissionError(f"{what} is not allowed while your code is graded")
        if event == "object.__setattr__" and args[1] == "__code__" and isinstance(args[0], types.FunctionType):
            note("integrity", "replaced a function's code", getframe(1))
            raise PermissionError("replacing a function's __code__ is not allowed while your code is graded")
        if event in ("marshal.loads", "marshal.load") and not _trusted_bytecode(getframe(1), writable):
            note("integrity", "loaded bytecode from a place it can write", getframe(1))
            raise PermissionError("loading bytecode is not allowed while your code is graded")
        if sys.meta_path[:1] == [finder]:
            return
        # The placeholder finder was taken off sys.meta_path: refuse outright what it would have refused.
        name = str(args[0]) if event == "import" else _module_name(args[0], trusted) if event == "exec" else None
        if name is not None:
            refused = refuse(name)
            if refused is not None:
                raise ImportError(refused)

    sys.addaudithook(hook)
    sys.dont_write_bytecode = True


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
    while frame is not None and _machinery(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _machinery(filename: str) -> bool:
    """Import machinery, looked through to find who asked for a module (this module's import hook too)."""
    return filename.startswith(("<frozen importlib.", "<frozen zipimport>")) or "/importlib/" in filename \
        or filename.endswith(("/pkgutil.py", "/runpy.py")) or filename == _THIS_FILE


def _module_name(code: object, trusted: Sequence[str]) -> str | None:
    """The module a module's code object belongs to, from its file under one of the `trusted` folders."""
    if not isinstance(code, types.CodeType) or code.co_name != "<module>":
        return None
    for folder in trusted:
        prefix = folder.rstrip("/") + "/"
        if code.co_filename.startswith(prefix) and code.co_filename.endswith(".py"):
            parts = code.co_filename[len(prefix):-3].split("/")
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def _inside(filename: str, folders: Sequence[str]) -> bool:
    return filename.startswith(("<probe ", "<frozen ")) or any(filename.startswith(f.rstrip("/") + "/")
                                                                for f in folders)


def _trusted_bytecode(frame: FrameType | None, writable: Sequence[str]) -> bool:
    """marshal.loads called by the import system for a module from a read-only place."""
    if frame is None or frame.f_code.co_name != "_compile_bytecode":
        return False
    path = frame.f_locals.get("bytecode_path") or frame.f_locals.get("source_path") or ""
    return isinstance(path, str) and bool(path) and not any(
        os.path.realpath(path).startswith(w.rstrip("/") + "/") for w in writable)


def _where(frame: FrameType | None, trusted: Sequence[str]) -> str:
    """The submission's line that did it: the innermost frame that is not the grader's or the library's."""
    while frame is not None and (_inside(frame.f_code.co_filename, trusted) or _machinery(frame.f_code.co_filename)):
        frame = frame.f_back
    if frame is None:
        return ""
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"
