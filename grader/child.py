"""Inside the sandboxed child: load the submission, run the probes, reply with plain data.

Everything the child says goes to the reply pipe as JSON lines; the trusted side parses them as
untrusted data. Nothing here can make a check pass: the child never sees expected values.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
import types
from collections.abc import Sequence
from typing import Any, NoReturn

from grader.execute import compile_probe, describe_error, namespace, run_probe
from grader.inputs import input_from_data
from grader.values import error_to_data, to_data

# Bound before student code runs, so that patching json or os in the submission does not reach us.
_dumps = json.dumps
_write = os.write
_close = os.close
_exit = os._exit

#: the reply's last line when the child got to the end; the trusted side then needs no exit status
DONE = b'{"event":"done"}\n'

MAX_REQUEST = 64 * 1024 * 1024


class _Reply:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, message: dict[str, Any]) -> None:
        self.write((_dumps(message, separators=(",", ":")) + "\n").encode())

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = _write(self.fd, view)
            view = view[written:]


def serve(request_fd: int, reply_fd: int) -> NoReturn:
    """Read the request, do the work, reply, and end the process; never returns."""
    reply = _Reply(reply_fd)
    try:
        request = json.loads(_read_all(request_fd))
        _run(request, reply)
    except BaseException as exc:  # noqa: BLE001 - whatever happened, say so and leave
        try:
            reply.send({"event": "crashed", "error": error_to_data(describe_error(exc, {}))})
        except BaseException:  # noqa: BLE001 - the reply pipe itself is gone
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - a student may have replaced the stream
                pass
    # Closed before the exit, whose teardown (memory, namespaces) takes milliseconds: the grader
    # has all there is as soon as both pipes end, and goes on while this process is taken down.
    for fd in (reply_fd, 1, 2):
        try:
            _close(fd)
        except OSError:
            pass
    _exit(0)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError("request too large")
    os.close(fd)
    return b"".join(chunks)


def _run(request: dict[str, Any], reply: _Reply) -> None:
    """Run the cells in one module, as Jupyter or an import would, then each group's probes.

    A .py file is one cell: if it raises, it did not load, and no probe runs. A notebook goes on
    past a failing cell, as the grading of a notebook must: later cells may still define what counts.
    """
    _block_imports(request["forbid_imports"])
    cells = [(cell["label"], cell["source"]) for cell in request["cells"]]
    sources = {label: tuple(source.splitlines()) for label, source in cells}
    module = types.ModuleType("submission")
    module.__file__ = request["filename"]
    sys.modules["submission"] = module  # so that dataclasses and pickle can find the module
    for index, (label, source) in enumerate(cells):
        reply.send({"event": "cell", "cell": index})
        try:
            exec(compile(source, label, "exec", dont_inherit=True), module.__dict__)
        except BaseException as exc:  # noqa: BLE001 - student code: anything goes, even SystemExit
            reply.send({"event": "cell_error", "cell": index, "error": error_to_data(describe_error(exc, sources))})
            if not request["keep_going"]:
                return
    reply.send({"event": "loaded"})
    for group_index, group in enumerate(request["groups"]):
        _run_group(group_index, group, module, sources, request["device"], reply)
    reply.write(DONE)


def _run_group(group_index: int, group: dict[str, Any], module: types.ModuleType,
               sources: dict[str, tuple[str, ...]], device: str, reply: _Reply) -> None:
    """The probes of one exercise, on the names it needs."""
    missing = _missing(module, group["defines"])
    if missing:
        reply.send({"event": "missing", "group": group_index, "names": missing})
        return
    provided = {name: getattr(module, name) for name in group["defines"]}
    for index, probe in enumerate(group["probes"]):
        reply.send({"event": "start", "group": group_index, "probe": index})
        compiled = compile_probe(probe["name"], probe["code"], dict(probe["observe"]))
        inputs = {name: input_from_data(value) for name, value in probe["inputs"].items()}
        try:
            scope = namespace(group["engine"], provided, inputs, device, probe["torch_seed"])
        except BaseException as exc:  # noqa: BLE001 - e.g. CUDA failing to start in this process
            outcome: Any = describe_error(exc, {})
        else:
            outcome = run_probe(compiled, scope, catch=BaseException, sources=sources)
        if isinstance(outcome, dict):
            reply.send({"event": "probe", "group": group_index, "probe": index,
                        "observations": {label: to_data(value) for label, value in outcome.items()}})
        else:
            reply.send({"event": "probe", "group": group_index, "probe": index, "error": error_to_data(outcome)})


class _Forbidden(importlib.abc.MetaPathFinder):
    """Refuses modules the exercise forbids, however they are imported (import, __import__, importlib)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if _matches(fullname, self.names):
            raise ImportError(f"this exercise does not allow importing {fullname}")
        return None  # not ours: the next finder decides


def _block_imports(names: Sequence[str]) -> None:
    """The warm parent has torch loaded; an exercise that forbids it must not find it in sys.modules."""
    if not names:
        return
    for key in [key for key in sys.modules if _matches(key, names)]:
        del sys.modules[key]
    sys.meta_path.insert(0, _Forbidden(names))


def _matches(module: str, names: Sequence[str]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def _missing(module: types.ModuleType, defines: dict[str, str]) -> list[dict[str, str]]:
    """Names the exercise needs that the submission does not define as the right kind of thing."""
    missing = []
    for name, kind in defines.items():
        value = module.__dict__.get(name)
        if value is None:
            got = "nothing"
        elif kind == "class" and not isinstance(value, type):
            got = f"a {type(value).__name__}, not a class"
        elif kind == "function" and not callable(value):
            got = f"a {type(value).__name__}, not a function"
        else:
            continue
        missing.append({"name": name, "kind": kind, "got": got})
    return missing
