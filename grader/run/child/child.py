"""Inside the sandboxed child: load the submission, run the probes, reply with plain data.

The reply is written only by the guard (grader.run.guard.guard), from the local `event` of `_run`'s own frame,
signed under a key the guard alone holds; the trusted side parses it as untrusted data. Everything the
loop calls is bound into its locals before the submission's first line runs, and this module runs as the
harness's private copy (grader.run.child.warm), so rebinding what the submission can reach changes nothing here.
The submission's modules get builtins of their own. Nothing here can make a check pass: the child never
sees expected values.
"""

from __future__ import annotations

import builtins
import functools
import json
import json.scanner
import math
import os
import site
import sys
import sysconfig
import types
from collections.abc import Callable, Mapping
from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader
from pathlib import Path
from typing import Any, ClassVar, NoReturn

from grader.run.child.execute import compile_probe, error_data, run_probe_data, scope_of
from grader.run.child.names import library_missing, missing_names, reader
from grader.run.child.package import lay_out, own_modules, set_flag
from grader.run.child.warm import seal
from grader.run.guard import guard
from grader.run.policy import permits, permits_extension
from grader.run.wire import FRAME_HEADER, Hello, Request, frame_size, second_part_fields

KEY_BYTES = 32
_exit, _close, _read = os._exit, os.close, os.read
#: a module's own dict, whatever its class says
_DICT: Callable[[types.ModuleType], dict[str, Any]] = vars(types.ModuleType)["__dict__"].__get__
_NAME = type.__dict__["__name__"].__get__


def serve(request_fd: int, reply_fd: int, hello: Hello, startup: frozenset[str]) -> NoReturn:
    """Read the key and the request, do the work, and end the process; never returns."""
    try:
        key = _read_exact(request_fd, KEY_BYTES)
        request = Request.from_json(json.loads(_read_frame(request_fd)))
        _run(key, request, request_fd, reply_fd, hello, startup)
    except BaseException:  # noqa: BLE001 - before the guard there is no reply to say it in; the status says it
        _exit(71)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a student may have replaced the stream
            pass
    # Closed before the exit, whose teardown takes milliseconds: the grader has all there is as soon
    # as both pipes end, and goes on while this process is taken down.
    for fd in (reply_fd, 1, 2, request_fd):
        try:
            _close(fd)
        except OSError:
            pass
    _exit(0)


def _run(key: bytearray, request: Request, request_fd: int, reply_fd: int, hello: Hello,
         startup: frozenset[str]) -> None:
    """Run the cells in one module, as Jupyter or an import would, then each group's probes.

    A .py file is one cell: if it raises, it did not load, and no probe runs. A notebook goes on past a
    failing cell: later cells may still define what counts. Every name the loop uses is a local bound
    here, first thing, every probe is compiled before the submission runs, and every message leaves
    through `event` and the guard.

    A request in two parts has a second part (the hidden checks, grader.run.sandbox.Sandbox.launch_two_parts), sent
    once all of the first is taken: read by a scanner bound here, compiled by the guard, run on the same module.
    """
    audit, compile_, exec_, range_, len_ = sys.audit, compile, exec, range, len
    run_probe_, scope_, error_data_, missing_ = run_probe_data, scope_of, error_data, missing_names
    read_frame_, then_, second_part_ = _read_frame, request.two_parts, second_part_fields
    scan_ = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # C: holds its parsers
    event: tuple[str, dict[str, Any]] = ("ready", {"level": hello.level, "mode": hello.mode,
                                                   "isolation": hello.isolation})
    allowed = frozenset(request.allowed) if request.allowed is not None else None
    forbidden = frozenset(request.forbidden)
    siblings = [(s.name, s.source) for s in request.siblings]
    package = [(f.name, f.source) for f in request.package]
    import_paths = list(request.import_paths)
    try:
        pristine = dict(builtins.__dict__)
        helpers = _helpers(request, pristine)
        recorder = _recorder(request, helpers)
        watch: Any
        enter: Any
        leave: Any
        report: Any
        watch, enter, leave, report = recorder if recorder is not None else (None,) * 4
        groups = [(g.engine, list(g.defines), g.watched,
                   [(compile_probe(p.name, p.code, dict(p.observe)), p.inputs, p.torch_seed,
                     frozenset(p.uses)) for p in g.probes], g.graph.to_json() if g.graph is not None else None)
                  for g in request.groups]
        library_missing_, reader_, set_flag_ = library_missing, reader, set_flag
        device, keep_going = request.device, request.keep_going
        own_files = seal(functools.partial(_student_files, tuple(_writable(hello.mode))), "student_files")
        guard.install(key, reply_fd, sys._getframe(), trusted=_TRUSTED, writable=_writable(hello.mode),
                      owned=[os.path.realpath(os.getcwd()) + "/"] if hello.mode == "landlock" else [],
                      permits=_permits(allowed, forbidden) if allowed is not None or forbidden else None,
                      extensions=_extensions(allowed, forbidden), refusal=_refusal(request.exercise),
                      own_modules=[*(Path(name).stem for name, _ in siblings), *own_modules(package, import_paths)],
                      grader=_GRADER)
        audit(guard.EVENT)
        cells = [(cell.name, cell.source) for cell in request.cells]
        sources = {label: tuple(source.splitlines()) for label, source in cells}
        module = types.ModuleType("submission")
        module.__file__ = request.filename
        for name, source in siblings:  # the student's own modules, importable beside the graded file
            Path(name).write_text(source, encoding="utf-8")
            sources[os.path.abspath(name)] = tuple(source.splitlines())
        sys.path.insert(0, os.getcwd())
        sources.update(lay_out(package, import_paths))  # a library's package, at its paths in the repository
        _scrub(startup, allowed, forbidden)
        sys.modules["submission"] = module  # so that dataclasses and pickle can find the module
        event = ("student", {})
        audit(guard.EVENT)
        _own_builtins(module, pristine, own_files)
        for index in range_(len_(cells)):
            label, source = cells[index]
            event = ("cell", {"cell": index})
            audit(guard.EVENT)
            try:
                exec_(compile_(source, label, "exec", dont_inherit=True), _DICT(module))
            except BaseException as exc:  # noqa: BLE001 - student code: anything goes, even SystemExit
                event = ("cell_error", {"cell": index, "error": error_data_(exc, sources)})
                audit(guard.EVENT)
                if not keep_going:
                    return
        event = ("loaded", {})
        audit(guard.EVENT)
        todo: Any = groups
        while todo:
            for g in range_(len_(todo)):
                engine, defines, watched, probes, graph = todo[g]
                if engine == "library":
                    missing, provided = library_missing_(defines, sources)
                    read = reader_(graph, sources)
                else:
                    (missing, provided), read = missing_(module, defines), None
                event = ("group", {"group": g, "missing": missing})
                audit(guard.EVENT)
                absent = {item["name"] for item in missing}
                for p in range_(len_(probes)):
                    compiled, inputs, torch_seed, uses = probes[p]
                    if absent.intersection(uses):
                        continue  # its check says which name it needs
                    event = ("start", {"group": g, "probe": p})
                    audit(guard.EVENT)
                    evidence: dict[str, Any] = {}
                    try:
                        scope = scope_(engine, provided, inputs, device, torch_seed, helpers)
                    except BaseException as exc:  # noqa: BLE001 - e.g. CUDA failing to start in this process
                        ran, found = False, error_data_(exc, {})
                    else:
                        tensors = {name: scope[name] for name in inputs}
                        if watched and recorder is not None:
                            watch(tensors)
                            enter()
                        try:
                            if read is None:
                                ran, found = run_probe_(compiled, scope, BaseException, sources)
                            else:  # as the course's own tests run it: each op computed as it is made
                                ran, found = run_probe_(compiled, scope, BaseException, sources, read)
                        finally:
                            if watched and recorder is not None:
                                leave()
                        lazy = set_flag_(graph["lazy"], True) if not ran and graph and graph["lazy"] else None
                        if lazy is not None:  # an op raised as it was made: again, each computed only when read,
                            try:  # so that the course's reference can stand in for an op the check does not grade
                                again = scope_(engine, provided, inputs, device, torch_seed, helpers)
                                ran_lazily, found_lazily = run_probe_(compiled, again, BaseException, sources, read)
                            finally:
                                set_flag_(graph["lazy"], lazy)
                            if ran_lazily:
                                ran, found = ran_lazily, found_lazily
                        if watched and recorder is not None:
                            evidence = {"evidence": report(tensors)}
                    if ran:
                        event = ("probe", {"group": g, "probe": p, **evidence, "observations": found})
                    else:
                        event = ("probe", {"group": g, "probe": p, **evidence, "error": found})
                    audit(guard.EVENT)
            event = ("done", {})  # what it printed is out already: its streams write through (zygote_main)
            audit(guard.EVENT)
            more, then_ = second_part_(scan_(read_frame_(request_fd).decode(), 0)[0]) if then_ else [], False
            compiled_: list[Any] = []
            event = ("compile", {"probes": [(p[0], p[1], dict(p[2])) for _, probes in more for p in probes],
                                 "into": compiled_})
            audit(guard.EVENT)
            made_ = iter(compiled_)
            todo = [(*groups[place][:3], [(next(made_), p[3], p[4], frozenset(p[5])) for p in probes],
                     groups[place][4]) for place, probes in more]
    except BaseException as exc:  # noqa: BLE001 - the grader's own code failed here: say so, signed
        event = ("crashed", {"error": error_data(exc, {})})  # noqa: F841 - the guard reads it here
        audit(guard.EVENT)


def _helpers(request: Request, pristine: dict[str, Any]) -> dict[str, object]:
    """What probe code may use besides the engine's names, taken now, before any submission code runs: the
    builtins, math, torch and a sealed gradcheck where torch is loaded, numpy for tensors. Each probe gets
    its own copy of each (execute.scope_of)."""
    helpers: dict[str, object] = {"__builtins__": pristine, "math": math}
    engines = {group.engine for group in request.groups}
    if "torch" in engines:
        from grader.run.child import probe_tools

        helpers.update(torch=probe_tools.torch, gradcheck=seal(probe_tools.gradcheck, "gradcheck"))
    if "tensor" in engines or "library" in engines:
        import numpy

        helpers["np"] = _copy(numpy)
    return helpers


def _copy(module: types.ModuleType) -> types.ModuleType:
    """A module of the same attributes: rebinding the original's changes nothing here."""
    copy = types.ModuleType(module.__name__)
    _DICT(copy).update(_DICT(module))
    return copy


def _recorder(request: Request, helpers: Mapping[str, object]) -> Any:
    """What autograd does during each probe, recorded where an exercise has a rule about it (grader.run.child.evidence),
    and whether the submission computed with complex numbers where one forbids them (grader.run.child.complex_watch)."""
    from grader.run.child.evidence import record_autograd, together

    parts: list[Any] = []
    groups = [g for g in request.groups if g.engine == "torch" and (g.autograd or g.forbid_ops)]
    if groups:
        ops = sorted({op for g in groups for op in g.forbid_ops})
        torch: Any = _copy(helpers["torch"])  # type: ignore[arg-type]  # the recorder is reachable through torch
        parts.append(record_autograd(torch, ops, [*_TRUSTED, os.path.dirname(str(torch.__file__))],
                                     produced=any(g.autograd == "required" for g in groups)))
    if any(g.forbid_complex for g in request.groups):
        from grader.run.child.complex_watch import record_complex

        parts.append(record_complex(_TRUSTED))
    return together(parts) if parts else None


def _own_builtins(module: types.ModuleType, pristine: dict[str, Any], own_files: Any) -> None:
    """The submission's modules get builtins of their own, never the harness's: the graded module and what it
    imports from its own files (or any file it may write). Taken as the guard has just wrapped __import__,
    before the submission's first line. `import builtins` still gives the interpreter's module, which the
    libraries share (torch enumerates it): rebinding that changes the libraries, never the harness."""
    mine = dict(pristine)
    mine["__import__"] = builtins.__import__
    _DICT(module)["__builtins__"] = mine
    _StudentLoader.builtins = mine
    _StudentLoader.top = os.getcwd() + "/"
    sys.path_hooks.insert(0, own_files)  # sealed: the hook leads to nothing of the harness's
    sys.path_importer_cache.pop(os.getcwd(), None)


class _StudentLoader(SourceFileLoader):
    """The loader of the submission's own .py files: they run with the submission's builtins."""

    builtins: ClassVar[dict[str, Any]] = {}
    #: the run's folder: a file under it is compiled under its path in the repository, which errors then name
    top: ClassVar[str] = "/"

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["__builtins__"] = type(self).builtins
        super().exec_module(module)

    def source_to_code(self, data: Any, path: Any, *, _optimize: int = -1) -> types.CodeType:  # type: ignore[override]
        shown = path[len(self.top):] if type(path) is str and path.startswith(self.top) else path
        return compile(data, shown, "exec", dont_inherit=True)


def _student_files(writable: tuple[str, ...], path: str) -> FileFinder:
    """A path hook for folders the submission may write (its own folder, /tmp): their .py files are its own, and
    nothing else there (a .pyc, a C extension) is imported."""
    real = os.path.realpath(path or ".") + "/" if isinstance(path, str) else ""
    if not (any(real.startswith(w) for w in writable) and os.access(real, os.W_OK)):
        raise ImportError("not a folder of the submission's")  # a package's, bound read-only under /tmp: its own
    return FileFinder(path, (_StudentLoader, SOURCE_SUFFIXES))


def _permits(allowed: frozenset[str] | None, forbidden: frozenset[str]) -> Any:
    def allows(module: str) -> bool:
        return permits(module, allowed, forbidden)

    return allows


def _extensions(allowed: frozenset[str] | None, forbidden: frozenset[str]) -> Any:
    def allows(module: str) -> bool:
        return permits_extension(module, allowed, forbidden)

    return allows


def _refusal(exercise: str) -> Any:
    def refusal(module: str) -> str:
        return f"{module} is not available in exercise {exercise}, which does not allow importing it."

    return refusal


def _scrub(startup: frozenset[str], allowed: frozenset[str] | None, forbidden: frozenset[str]) -> None:
    """Leave in sys.modules only what the interpreter started with and what the submission may import:
    the grader's own modules, and what they brought that it may not import, are imported afresh if asked
    for, so the guard sees the asking."""
    for name in list(sys.modules):
        keep = name in startup or permits(name, allowed, forbidden)
        if name.partition(".")[0] == "grader" or not keep:
            del sys.modules[name]


def _trusted_folders() -> list[str]:
    """Where code that is not the submission's lives: the standard library, packages, the grader."""
    paths = sysconfig.get_paths()
    folders = {paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"], _GRADER}
    folders |= set(getattr(site, "getsitepackages", list)())
    return sorted(os.path.realpath(f) for f in folders if f)


#: the grader package's folder, every layer
_GRADER = str(Path(__file__).resolve().parents[2])
#: worked out once, as the zygote imports this module
_TRUSTED = _trusted_folders()


def _writable(mode: str) -> list[str]:
    """Where the submission can write: in landlock mode its own folder alone, which is all its Landlock
    layer allows whatever os.access says (nothing can ask Landlock), and which the guard counts as wholly
    the submission's (`owned`)."""
    places = (os.getcwd(),) if mode == "landlock" else (os.getcwd(), "/tmp", "/var/tmp", "/dev/shm")
    return [os.path.realpath(p).rstrip("/") + "/" for p in places]


def _read_exact(fd: int, size: int) -> bytearray:
    data = bytearray()
    while len(data) < size:
        chunk = _read(fd, size - len(data))
        if not chunk:
            raise EOFError("the request ended early")
        data += chunk
    return data


def _read_frame(fd: int) -> bytes:
    """A part of the request: its size, then its bytes (grader.run.wire.frame), cut at its most."""
    return bytes(_read_exact(fd, frame_size(bytes(_read_exact(fd, FRAME_HEADER)))))
