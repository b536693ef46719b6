"""Inside the sandboxed child: load the submission, run the probes, reply with plain data.

The reply is written only by the guard (grader.run.guard), from the local `event` of `_run`'s own frame,
signed under a key the guard alone holds; the trusted side parses it as untrusted data. Everything the
loop calls is bound into its locals before the submission's first line runs, so rebinding a module's
names changes nothing here. Nothing here can make a check pass: the child never sees expected values.
"""

from __future__ import annotations

import builtins
import json
import math
import os
import site
import sys
import sysconfig
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from grader.core.values import error_to_data, to_data
from grader.run import guard
from grader.run.execute import compile_probe, describe_error, namespace, run_probe
from grader.run.inputs import input_from_data
from grader.run.zygote_main import Hello

KEY_BYTES = 32
MAX_REQUEST = 64 * 1024 * 1024
_exit, _close = os._exit, os.close


def serve(request_fd: int, reply_fd: int, hello: Hello, startup: frozenset[str]) -> NoReturn:
    """Read the key and the request, do the work, and end the process; never returns."""
    try:
        key = _read_exact(request_fd, KEY_BYTES)
        request = json.loads(_read_all(request_fd))
        _run(key, request, reply_fd, hello, startup)
    except BaseException:  # noqa: BLE001 - before the guard there is no reply to say it in; the status says it
        _exit(71)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a student may have replaced the stream
            pass
    # Closed before the exit, whose teardown takes milliseconds: the grader has all there is as soon
    # as both pipes end, and goes on while this process is taken down.
    for fd in (reply_fd, 1, 2):
        try:
            _close(fd)
        except OSError:
            pass
    _exit(0)


def _run(key: bytearray, request: dict[str, Any], reply_fd: int, hello: Hello, startup: frozenset[str]) -> None:
    """Run the cells in one module, as Jupyter or an import would, then each group's probes.

    A .py file is one cell: if it raises, it did not load, and no probe runs. A notebook goes on past a
    failing cell: later cells may still define what counts. Every name the loop uses is a local bound
    here, first thing, and every message leaves through `event` and the guard.
    """
    audit, compile_, exec_, range_, len_, getattr_ = sys.audit, compile, exec, range, len, getattr
    run_probe_, namespace_, compile_probe_, describe_, to_data_, error_data_ = (
        run_probe, namespace, compile_probe, describe_error, to_data, error_to_data)
    input_ = input_from_data
    event: tuple[str, dict[str, Any]] = ("ready", {"level": hello.level, "mode": hello.mode,
                                                   "isolation": hello.isolation})
    policy = request["policy"]
    allowed = frozenset(policy["allowed"]) if policy["allowed"] is not None else None
    forbidden = frozenset(policy["forbidden"])
    siblings = [(s["name"], s["source"]) for s in request["siblings"]]
    try:
        helpers = _helpers(request)
        recorder = _recorder(request, helpers)
        guard.install(key, reply_fd, sys._getframe(), trusted=_TRUSTED, writable=_writable(hello.mode),
                      owned=[os.path.realpath(os.getcwd())] if hello.mode == "landlock" else [],
                      permits=_permits(allowed, forbidden) if allowed is not None or forbidden else None,
                      refusal=_refusal(request["exercise"], allowed, policy["describe"]),
                      own_modules=[Path(name).stem for name, _ in siblings])
        audit(guard.EVENT)
        cells = [(cell["label"], cell["source"]) for cell in request["cells"]]
        sources = {label: tuple(source.splitlines()) for label, source in cells}
        module = types.ModuleType("submission")
        module.__file__ = request["filename"]
        for name, source in siblings:  # the student's own modules, importable beside the graded file
            Path(name).write_text(source, encoding="utf-8")
            sources[os.path.abspath(name)] = tuple(source.splitlines())
        sys.path.insert(0, os.getcwd())
        _scrub(startup, allowed, forbidden)
        sys.modules["submission"] = module  # so that dataclasses and pickle can find the module
        event = ("student", {})
        audit(guard.EVENT)
        for index in range_(len_(cells)):
            label, source = cells[index]
            event = ("cell", {"cell": index})
            audit(guard.EVENT)
            try:
                exec_(compile_(source, label, "exec", dont_inherit=True), module.__dict__)
            except BaseException as exc:  # noqa: BLE001 - student code: anything goes, even SystemExit
                event = ("cell_error", {"cell": index, "error": error_data_(describe_(exc, sources))})
                audit(guard.EVENT)
                if not request["keep_going"]:
                    return
        event = ("loaded", {})
        audit(guard.EVENT)
        groups = request["groups"]
        for g in range_(len_(groups)):
            group = groups[g]
            missing = _missing(module, group["defines"])
            event = ("group", {"group": g, "missing": missing})
            audit(guard.EVENT)
            absent = {item["name"] for item in missing}
            provided = {name: getattr_(module, name) for name in group["defines"] if name not in absent}
            for p in range_(len_(group["probes"])):
                probe = group["probes"][p]
                if absent.intersection(probe["uses"]):
                    continue  # its check says which name it needs
                event = ("start", {"group": g, "probe": p})
                audit(guard.EVENT)
                compiled = compile_probe_(probe["name"], probe["code"], dict(probe["observe"]))
                inputs = {name: input_(value) for name, value in probe["inputs"].items()}
                watched = recorder is not None and bool(group["autograd"] or group["forbid_ops"])
                evidence: dict[str, Any] = {}
                try:
                    scope = namespace_(group["engine"], provided, inputs, request["device"], probe["torch_seed"],
                                       helpers)
                except BaseException as exc:  # noqa: BLE001 - e.g. CUDA failing to start in this process
                    outcome: Any = describe_(exc, {})
                else:
                    tensors = {name: scope[name] for name in inputs}
                    if watched:
                        recorder.watch(tensors)
                        recorder.enter()
                    try:
                        outcome = run_probe_(compiled, scope, catch=BaseException, sources=sources)
                    finally:
                        if watched:
                            recorder.leave()
                    if watched:
                        evidence = {"evidence": recorder.report(tensors)}
                if isinstance(outcome, dict):
                    event = ("probe", {"group": g, "probe": p, **evidence,
                                       "observations": {label: to_data_(value) for label, value in outcome.items()}})
                else:
                    event = ("probe", {"group": g, "probe": p, **evidence, "error": error_data_(outcome)})
                audit(guard.EVENT)
        event = ("done", {})
        audit(guard.EVENT)
    except BaseException as exc:  # noqa: BLE001 - the grader's own code failed here: say so, signed
        event = ("crashed", {"error": error_data_(describe_(exc, {}))})  # noqa: F841 - the guard reads it here
        audit(guard.EVENT)


def _helpers(request: dict[str, Any]) -> Mapping[str, object]:
    """What probe code may use besides the engine's names, taken now, before any submission code runs:
    a copy of the builtins and of math, torch and its gradcheck where torch is loaded, numpy for tensors."""
    helpers: dict[str, object] = {"__builtins__": dict(builtins.__dict__), "math": _copy(math)}
    engines = {group["engine"] for group in request["groups"]}
    if "torch" in engines:
        from grader.run import probe_tools

        helpers.update(torch=probe_tools.torch, gradcheck=probe_tools.gradcheck)
    if "tensor" in engines:
        import numpy

        helpers["np"] = numpy
    return types.MappingProxyType(helpers)


def _recorder(request: dict[str, Any], helpers: Mapping[str, object]) -> Any:
    """What autograd does during each probe, recorded where an exercise has a rule about it (grader.run.evidence)."""
    groups = [g for g in request["groups"] if g["engine"] == "torch" and (g["autograd"] or g["forbid_ops"])]
    if not groups:
        return None
    from grader.run.evidence import Recorder

    ops = sorted({op for g in groups for op in g["forbid_ops"]})
    torch: Any = helpers["torch"]
    return Recorder(torch, ops, [*_TRUSTED, os.path.dirname(str(torch.__file__))],
                    produced=any(g["autograd"] == "required" for g in groups))


def _copy(module: types.ModuleType) -> types.ModuleType:
    copy = types.ModuleType(module.__name__)
    copy.__dict__.update(module.__dict__)
    return copy


def _permits(allowed: frozenset[str] | None, forbidden: frozenset[str]) -> Any:
    def permits(module: str) -> bool:
        top = module.partition(".")[0]
        return top not in forbidden and (allowed is None or top in allowed)

    return permits


def _refusal(exercise: str, allowed: frozenset[str] | None, described: str) -> Any:
    def refusal(module: str) -> str:
        top = module.partition(".")[0]
        return f"{top} is not available in exercise {exercise}, which does not allow importing it."

    return refusal


def _scrub(startup: frozenset[str], allowed: frozenset[str] | None, forbidden: frozenset[str]) -> None:
    """Leave in sys.modules only what the interpreter started with and what the submission may import:
    the grader's own modules, and what they brought (json, hmac...), are imported afresh if asked for, so
    the guard sees the asking."""
    for name in list(sys.modules):
        top = name.partition(".")[0]
        keep = name in startup or ((allowed is None or top in allowed) and top not in forbidden)
        if top == "grader" or not keep:
            del sys.modules[name]


def _trusted_folders() -> list[str]:
    """Where code that is not the submission's lives: the standard library, packages, the grader."""
    paths = sysconfig.get_paths()
    folders = {paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"],
               str(Path(__file__).resolve().parents[1])}  # the grader package, every layer
    folders |= set(getattr(site, "getsitepackages", list)())
    return sorted(os.path.realpath(f) for f in folders if f)


#: worked out once, as the zygote imports this module
_TRUSTED = _trusted_folders()


def _writable(mode: str) -> list[str]:
    """Where the submission can write: in landlock mode its own folder alone, which is all its Landlock
    layer allows whatever os.access says (nothing can ask Landlock), and which the guard counts as wholly
    the submission's (`owned`)."""
    places = (os.getcwd(),) if mode == "landlock" else (os.getcwd(), "/tmp", "/var/tmp", "/dev/shm")
    return [os.path.realpath(p) for p in places]


def _read_exact(fd: int, size: int) -> bytearray:
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError("the request ended early")
        data += chunk
    return data


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
