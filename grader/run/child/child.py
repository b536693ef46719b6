"""Inside the sandboxed child: load the submission, run the probes, reply with plain data.

The reply is written only by the guard (grader.run.guard.guard), from the local `event` of `_run`'s
own frame, signed under a key the guard alone holds; the trusted side parses it as untrusted data.
Everything the loop calls is bound into its locals before the submission's first line runs, and this
module runs as the harness's private copy (grader.run.child.warm), so rebinding what the submission
can reach changes nothing here. The submission's modules get builtins of their own. Nothing here can
make a check pass: the child never sees expected values.
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
        _run(key, request, (request_fd, reply_fd), hello, startup)
    except BaseException:  # noqa: BLE001 - no reply before the guard: the status says it
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


def _run(
    key: bytearray, request: Request, fds: tuple[int, int], hello: Hello, startup: frozenset[str]
) -> None:
    """Load the submission as Jupyter or an import would, then run each group's probes (and a
    two-part run's second part). This frame is the harness: every message leaves through its
    local `event`, which the guard reads from it alone.
    """
    request_fd, reply_fd = fds
    audit, exec_, compile_, range_, len_ = sys.audit, exec, compile, range, len
    error_data_, group_, probe_, more_, todo_ = error_data, _group, _probe, _more, _todo
    event: tuple[str, dict[str, Any]] = ("ready", hello.to_json())
    try:
        groups, tools, run, keep_going, two_parts, own = _set_up(request, hello)
        guard.install(key, reply_fd, sys._getframe(), **_guarding(request, hello))
        audit(guard.EVENT)
        module, cells, sources = _lay_out(request, startup)
        run = (*run, sources)
        event = ("student", {})
        audit(guard.EVENT)
        _own_builtins(module, *own)
        for index in range_(len_(cells)):
            label, source = cells[index]
            event = ("cell", {"cell": index})
            audit(guard.EVENT)
            try:
                exec_(compile_(source, label, "exec", dont_inherit=True), _DICT(module))
            except BaseException as exc:  # noqa: BLE001 - student code: anything goes
                event = ("cell_error", {"cell": index, "error": error_data_(exc, sources)})
                audit(guard.EVENT)
                if not keep_going:
                    return
        event = ("loaded", {})
        audit(guard.EVENT)
        todo = groups
        while todo:
            for g in range_(len_(todo)):
                missing, context, probes = group_(todo[g], module, sources, tools)
                event = ("group", {"group": g, "missing": missing})
                audit(guard.EVENT)
                absent = {item["name"] for item in missing}
                for p in range_(len_(probes)):
                    if absent.intersection(probes[p][3]):
                        continue  # its check says which name it needs
                    event = ("start", {"group": g, "probe": p})
                    audit(guard.EVENT)
                    event = ("probe", {"group": g, "probe": p, **probe_(probes[p], context, run)})
                    audit(guard.EVENT)
            event = ("done", {})  # its output is out already: its streams write through
            audit(guard.EVENT)
            more = more_(request_fd, two_parts, tools)
            two_parts = False
            compiled_: list[Any] = []
            event = ("compile", {"probes": more[0], "into": compiled_})
            audit(guard.EVENT)
            todo = todo_(groups, more[1], compiled_)
    except BaseException as exc:  # noqa: BLE001 - the grader's own code failed: say so, signed
        event = ("crashed", {"error": error_data(exc, {})})  # noqa: F841 - the guard reads it
        audit(guard.EVENT)


#: a group as the loop runs it: what its probes compute with and whether its names are a
#: package's, names it asks for, whether it is watched, its probes (compiled, inputs, torch
#: seed, names each uses), and how a library's tensors are read
_Group = tuple[tuple[str, bool], list[tuple[str, str]], bool, list[Any], "dict[str, Any] | None"]
#: what a group's probes run with: what they compute with, names found, reader, a library's
#: flag, watched
_Context = tuple[str, dict[str, Any], Any, Any, bool]


def _set_up(request: Request, hello: Hello) -> tuple[Any, ...]:
    """All the harness uses once the submission runs, made and bound now, before its first line:
    plain tuples, dicts and functions alone, never an object of the grader's classes.

    The groups, with every probe compiled; the tools of the loop; what a probe runs with; whether
    to go on past a failing cell; whether a second part follows; the submission's builtins and
    path hook.
    """
    pristine = dict(builtins.__dict__)
    helpers = _helpers(request, pristine)
    recorder = _recorder(request, helpers)
    groups: list[_Group] = []
    for group in request.groups:
        probes = []
        for probe in group.probes:
            compiled = compile_probe(probe.name, probe.code, dict(probe.observe))
            probes.append((compiled, probe.inputs, probe.torch_seed, frozenset(probe.uses)))
        graph = None if group.graph is None else group.graph.to_json()
        kind = (group.arrays, group.package)
        groups.append((kind, list(group.defines), group.watched, probes, graph))
    writable = tuple(_writable(hello.mode))
    own_files = seal(functools.partial(_student_files, writable), "student_files")
    # the C scanner: it holds its parsers
    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
    tools = (missing_names, library_missing, reader, _read_frame, second_part_fields, scan)
    probing = (scope_of, run_probe_data, set_flag, error_data)
    run = (request.device, helpers, recorder, probing)
    own = (pristine, own_files)
    return groups, tools, run, request.keep_going, request.two_parts, own


def _policy(request: Request) -> tuple[frozenset[str] | None, frozenset[str]]:
    """The modules the submission may import (None: any), and those it may not."""
    allowed = frozenset(request.allowed) if request.allowed is not None else None
    return allowed, frozenset(request.forbidden)


def _guarding(request: Request, hello: Hello) -> dict[str, Any]:
    """What the guard is installed with: where code and files lie, and what may be imported."""
    allowed, forbidden = _policy(request)
    package = [(file.name, file.source) for file in request.package]
    own = [Path(sibling.name).stem for sibling in request.siblings]
    own += own_modules(package, list(request.import_paths))
    owned = [os.path.realpath(os.getcwd()) + "/"] if hello.mode == "landlock" else []
    folders = guard.Folders(
        trusted=_TRUSTED, writable=_writable(hello.mode), owned=owned, grader=_GRADER
    )
    limited = allowed is not None or forbidden
    imports = guard.Imports(
        permits=_permits(allowed, forbidden) if limited else None,
        extensions=_extensions(allowed, forbidden),
        refusal=_refusal(request.exercise),
        own_modules=own,
    )
    return {"folders": folders, "imports": imports}


def _lay_out(
    request: Request, startup: frozenset[str]
) -> tuple[types.ModuleType, list[tuple[str, str]], dict[str, tuple[str, ...]]]:
    """The module the cells run in, the cells, and every source's lines by its name; the
    submission's own modules and package written where it imports them from."""
    cells = [(cell.name, cell.source) for cell in request.cells]
    sources = {label: tuple(source.splitlines()) for label, source in cells}
    module = types.ModuleType("submission")
    module.__file__ = request.filename
    for sibling in request.siblings:  # its own modules, importable beside the graded file
        Path(sibling.name).write_text(sibling.source, encoding="utf-8")
        sources[os.path.abspath(sibling.name)] = tuple(sibling.source.splitlines())
    sys.path.insert(0, os.getcwd())
    package = [(file.name, file.source) for file in request.package]
    # a library's package, at its paths in the repository
    sources.update(lay_out(package, list(request.import_paths)))
    _scrub(startup, *_policy(request))
    sys.modules["submission"] = module  # so that dataclasses and pickle can find the module
    return module, cells, sources


def _group(
    entry: _Group, module: types.ModuleType, sources: dict[str, Any], tools: tuple[Any, ...]
) -> tuple[list[dict[str, str]], _Context, list[Any]]:
    """The names a group asks for that the submission lacks, what its probes run with, and its
    probes."""
    (arrays, package), defines, watched, probes, graph = entry
    missing_, library_missing_, reader_, _, _, _ = tools
    if package:
        missing, provided = library_missing_(defines, sources)
        read = reader_(graph, sources)
    else:
        (missing, provided), read = missing_(module, defines), None
    flag = graph and graph["lazy"]
    return missing, (arrays, provided, read, flag, watched), probes


def _probe(probe: tuple[Any, ...], context: _Context, run: tuple[Any, ...]) -> dict[str, Any]:
    """One probe run: its observations, or the error that stopped it; and, where its group is
    watched, the record of what autograd did."""
    compiled, inputs, torch_seed, _ = probe
    arrays, provided, read, flag, watched = context
    device, helpers, recorder, probing, sources = run
    scope_, run_probe_, _, error_data_ = probing
    try:
        scope = scope_(arrays, provided, inputs, device, torch_seed, helpers)
    except BaseException as exc:  # noqa: BLE001 - e.g. CUDA failing to start in this process
        return {"error": error_data_(exc, {})}
    tensors = {name: scope[name] for name in inputs}
    recorded = watched and recorder is not None
    if recorded:
        recorder[0](tensors)  # watch
        recorder[1]()  # enter
    try:
        if read is None:
            ran, found = run_probe_(compiled, scope, BaseException, sources)
        else:  # as the course's own tests run it: each op computed as it is made
            ran, found = run_probe_(compiled, scope, BaseException, sources, read)
    finally:
        if recorded:
            recorder[2]()  # leave
    if not ran and flag:
        ran, found = _lazily(probe, context, run, (ran, found))
    evidence = {"evidence": recorder[3](tensors)} if recorded else {}
    if ran:
        return {**evidence, "observations": found}
    return {**evidence, "error": found}


def _lazily(
    probe: tuple[Any, ...], context: _Context, run: tuple[Any, ...], found: tuple[bool, Any]
) -> tuple[bool, Any]:
    """A library's probe where an op raised as it was made: run again, each op computed only when
    read (its lazy flag set), so that the course's reference can stand in for an op the check does
    not grade; the first run's outcome where this one raises too."""
    compiled, inputs, torch_seed, _ = probe
    arrays, provided, read, flag, _ = context
    device, helpers, _, probing, sources = run
    scope_, run_probe_, set_flag_, _ = probing
    lazy = set_flag_(flag, True)
    if lazy is None:
        return found
    try:
        again = scope_(arrays, provided, inputs, device, torch_seed, helpers)
        ran_lazily, found_lazily = run_probe_(compiled, again, BaseException, sources, read)
    finally:
        set_flag_(flag, lazy)
    if ran_lazily:
        return ran_lazily, found_lazily
    return found


def _more(request_fd: int, two_parts: bool, tools: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    """A two-part run's second part, read once all of the first is said: each probe for the guard
    to compile (name, code, observations), and each group's place and probes."""
    if not two_parts:
        return [], []
    _, _, _, read_frame_, second_part_, scan_ = tools
    parts = second_part_(scan_(read_frame_(request_fd).decode(), 0)[0])
    asked = []
    for _, probes in parts:
        for probe in probes:
            asked.append((probe[0], probe[1], dict(probe[2])))
    return asked, parts


def _todo(groups: list[_Group], parts: list[Any], compiled: list[Any]) -> list[_Group]:
    """The groups of a second part as the loop runs them, with the probes the guard compiled."""
    made = iter(compiled)
    todo: list[_Group] = []
    for place, probes in parts:
        kind, defines, watched, _, graph = groups[place]
        runs = []
        for probe in probes:
            runs.append((next(made), probe[3], probe[4], frozenset(probe[5])))
        todo.append((kind, defines, watched, runs, graph))
    return todo


def _helpers(request: Request, pristine: dict[str, Any]) -> dict[str, object]:
    """What probe code may use besides the engine's names, taken now, before any submission code
    runs: the builtins, math, torch and a sealed gradcheck where torch is loaded, numpy for tensors.
    Each probe gets its own copy of each (execute.scope_of)."""
    helpers: dict[str, object] = {"__builtins__": pristine, "math": math}
    computed_with = {group.arrays for group in request.groups}
    if "torch" in computed_with:
        from grader.run.child import probe_tools

        helpers.update(torch=probe_tools.torch, gradcheck=seal(probe_tools.gradcheck, "gradcheck"))
    if "numpy" in computed_with:
        import numpy

        helpers["np"] = _copy(numpy)
    return helpers


def _copy(module: types.ModuleType) -> types.ModuleType:
    """A module of the same attributes: rebinding the original's changes nothing here."""
    copy = types.ModuleType(module.__name__)
    _DICT(copy).update(_DICT(module))
    return copy


def _recorder(request: Request, helpers: Mapping[str, object]) -> Any:
    """What autograd does during each probe, recorded where an exercise has a rule about it
    (grader.run.child.evidence), and whether the submission computed with complex numbers where one
    forbids them (grader.run.child.complex_watch)."""
    from grader.run.child.evidence import record_autograd, together

    parts: list[Any] = []
    groups = [g for g in request.groups if g.arrays == "torch" and (g.autograd or g.forbid_ops)]
    if groups:
        forbidden_ops: set[str] = set()
        for group in groups:
            forbidden_ops.update(group.forbid_ops)
        ops = sorted(forbidden_ops)
        # a copy: the recorder is reachable through torch
        torch: Any = _copy(helpers["torch"])  # type: ignore[arg-type]
        parts.append(
            record_autograd(
                torch,
                ops,
                [*_TRUSTED, os.path.dirname(str(torch.__file__))],
                produced=any(g.autograd == "required" for g in groups),
            )
        )
    if any(g.forbid_complex for g in request.groups):
        from grader.run.child.complex_watch import record_complex

        parts.append(record_complex(_TRUSTED))
    return together(parts) if parts else None


def _own_builtins(module: types.ModuleType, pristine: dict[str, Any], own_files: Any) -> None:
    """The submission's modules get builtins of their own, never the harness's: the graded module
    and what it imports from its own files (or any file it may write). Taken as the guard has just
    wrapped __import__, before the submission's first line. `import builtins` still gives the
    interpreter's module, which the libraries share (torch enumerates it): rebinding that changes
    the libraries, never the harness."""
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
    #: the run's folder: a file under it is compiled under its path in the repository, which errors
    #: then name
    top: ClassVar[str] = "/"

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["__builtins__"] = type(self).builtins
        super().exec_module(module)

    def source_to_code(  # type: ignore[override]
        self, data: Any, path: Any, *, _optimize: int = -1
    ) -> types.CodeType:
        shown = path[len(self.top) :] if type(path) is str and path.startswith(self.top) else path
        return compile(data, shown, "exec", dont_inherit=True)


def _student_files(writable: tuple[str, ...], path: str) -> FileFinder:
    """A path hook for folders the submission may write (its own folder, /tmp): their .py files are
    its own, and nothing else there (a .pyc, a C extension) is imported."""
    real = os.path.realpath(path or ".") + "/" if isinstance(path, str) else ""
    if not (any(real.startswith(w) for w in writable) and os.access(real, os.W_OK)):
        # a package's, bound read-only under /tmp: its own
        raise ImportError("not a folder of the submission's")
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
        return (
            f"{module} is not available in exercise {exercise}, which does not allow importing it."
        )

    return refusal


def _scrub(
    startup: frozenset[str], allowed: frozenset[str] | None, forbidden: frozenset[str]
) -> None:
    """Leave in sys.modules only what the interpreter started with and what the submission may
    import: the grader's own modules, and what they brought that it may not import, are imported
    afresh if asked for, so the guard sees the asking."""
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
    """Where the submission can write: in landlock mode its own folder alone, which is all its
    Landlock layer allows whatever os.access says (nothing can ask Landlock), and which the guard
    counts as wholly the submission's (`owned`)."""
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
