"""Run one probe's code on some engine and read its observations as plain data.

The sandboxed child runs this on the student's names; the oracle runs it on the reference ones. The
child's side (`scope_of`, `run_probe_data`, `error_data`) makes no object of the grader's own
classes: it works in plain tuples and dicts, whose behaviour no submission can rebind.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Mapping
from traceback import walk_tb
from types import CodeType, TracebackType
from typing import Any

from grader.core.values import ErrorInfo, Value, error_from_data, from_data
from grader.run.child.reading import data_of, tensor_method
from grader.run.inputs import InputValue, TensorInput

#: a probe compiled: its name, its statements, and each observation's label and expression
CompiledProbe = tuple[str, CodeType, tuple[tuple[str, CodeType], ...]]
_MODULE = types.ModuleType


def compile_probe(name: str, code: str, observe: Mapping[str, str]) -> CompiledProbe:
    """Compile a probe's statements and observation expressions (trusted text from a spec)."""
    filename = f"<probe {name}>"
    return (
        name,
        compile(code, filename, "exec", dont_inherit=True),
        tuple(
            (label, compile(expr, filename, "eval", dont_inherit=True))
            for label, expr in observe.items()
        ),
    )


def namespace(
    arrays: str,
    names: Mapping[str, object],
    inputs: Mapping[str, InputValue],
    device: str,
    torch_seed: int | None = None,
) -> dict[str, object]:
    """What a probe's code sees on the trusted side: the engine's names (the reference's), the
    inputs, helpers.

    Where probes compute with torch, its generator is seeded per probe, so that random
    initialisations in the student's code and in the solution are the same draw.
    """
    tools = trusted_helpers(arrays)
    scope: dict[str, object] = {"device": device, **tools}
    if arrays == "torch" and torch_seed is not None:
        tools["torch"].manual_seed(torch_seed)  # type: ignore[attr-defined]
    scope.update(names)
    scope.update(
        {name: materialize(value, device, arrays, tools) for name, value in inputs.items()}
    )
    return scope


def scope_of(
    arrays: str,
    names: Mapping[str, object],
    inputs: Mapping[str, object],
    device: str,
    torch_seed: int | None,
    helpers: Mapping[str, object],
) -> dict[str, object]:
    """The child's probe scope, from the request's plain data. `helpers` (builtins, math, torch and
    gradcheck, or numpy) were taken before any submission ran; each probe gets its own copy of the
    builtins and of each module, so that a probe's function handed to the submission (a lambda: its
    globals are the scope) leads to nothing another probe uses."""
    scope: dict[str, object] = {"device": device}
    for name, tool in helpers.items():
        if type(tool) is _MODULE:
            copy = _MODULE(tool.__name__)
            copy.__dict__.update(tool.__dict__)
            scope[name] = copy
        elif type(tool) is dict:
            scope[name] = dict(tool)
        else:
            scope[name] = tool
    if arrays == "torch" and torch_seed is not None:
        helpers["torch"].manual_seed(torch_seed)  # type: ignore[attr-defined]
    scope.update(names)
    for name, value in inputs.items():
        if type(value) is dict:
            t = value["tensor"]
            scope[name] = _tensor(
                t["shape"], t["data"], t["dtype"], t["requires_grad"], device, arrays, helpers
            )
        else:
            scope[name] = value
    return scope


def trusted_helpers(arrays: str) -> dict[str, object]:
    """The helpers as the trusted side binds them (no submission runs here)."""
    helpers: dict[str, object] = {"math": math}
    if arrays == "torch":
        from grader.run.child import probe_tools

        helpers.update(torch=probe_tools.torch, gradcheck=probe_tools.gradcheck)
    # numpy only: a tensor exercise's child never imports torch
    elif arrays == "numpy":
        import numpy

        helpers["np"] = numpy
    return helpers


def materialize(
    value: InputValue,
    device: str,
    arrays: str = "torch",
    helpers: Mapping[str, object] | None = None,
) -> object:
    """A fresh object for one run: tensors are made anew, so no run sees another's gradients.

    Where probes compute with numpy a tensor input is a fresh numpy array, whichever engine the
    probe then builds on it.
    """
    if not isinstance(value, TensorInput):
        return value
    tools = helpers if helpers is not None else trusted_helpers(arrays)
    return _tensor(value.shape, value.data, value.dtype, value.requires_grad, device, arrays, tools)


def _tensor(
    shape: Any,
    data: Any,
    dtype: str,
    requires_grad: bool,
    device: str,
    arrays: str,
    tools: Mapping[str, object],
) -> object:
    if arrays == "numpy":
        numpy: Any = tools["np"]
        return numpy.array(data, dtype=dtype).reshape(shape)
    torch: Any = tools["torch"]
    made = torch.tensor(data, dtype=torch.__dict__[dtype], device=device)
    made = tensor_method("reshape")(made, shape)
    return tensor_method("requires_grad_")(tensor_method("detach")(made), requires_grad)


def run_probe(
    probe: CompiledProbe,
    scope: dict[str, object],
    *,
    catch: type[BaseException] = Exception,
    sources: Mapping[str, tuple[str, ...]] | None = None,
    read: Callable[[object], dict[str, Any]] = data_of,
) -> ErrorInfo | dict[str, Value]:
    """Run the probe in `scope`; return its observations, or the error that stopped it (the trusted
    side, whose default `catch` lets Ctrl-C still stop the grader)."""
    ran, found = run_probe_data(probe, scope, catch, sources or {}, read)
    if not ran:
        return error_from_data(found)
    return {label: from_data(value) for label, value in found.items()}


def run_probe_data(
    probe: CompiledProbe,
    scope: dict[str, object],
    catch: type[BaseException],
    sources: Mapping[str, tuple[str, ...]],
    read: Callable[[object], dict[str, Any]] = data_of,
) -> tuple[bool, dict[str, Any]]:
    """(True, each observation's plain data) or (False, the error that stopped the probe, as data).
    The child passes `catch=BaseException`: student code may raise SystemExit and worse. `read`: how
    an observed object becomes data (a library's tensors as graphs, grader.run.child.graph)."""
    _, code, observe = probe
    try:
        exec(code, scope)
    except catch as exc:
        return False, error_data(exc, sources, catch)
    observations: dict[str, Any] = {}
    for label, expr in observe:
        try:
            observations[label] = read(eval(expr, scope))
        except catch as exc:
            observations[label] = error_data(exc, sources, catch)
    return True, observations


def describe_error(exc: BaseException, sources: Mapping[str, tuple[str, ...]]) -> ErrorInfo:
    """An exception as data: its type, message, and the innermost line of the submission it came
    from.

    `sources` maps each compiled cell's label (the file name given to compile) to its lines.
    """
    return error_from_data(error_data(exc, sources, Exception))


def error_data(
    exc: BaseException,
    sources: Mapping[str, tuple[str, ...]],
    catch: type[BaseException] = BaseException,
) -> dict[str, Any]:
    """`describe_error`'s plain data (the reply's wire form). Whatever the exception's own code
    raises while it is read (its __str__, a SyntaxError's properties, SystemExit's code's __repr__)
    is only the student's: `catch`."""
    type_name = _name(type(exc))
    where = _where(exc.__traceback__, sources)
    try:
        if isinstance(exc, SystemExit):
            message = f"sys.exit({BaseException.__getattribute__(exc, 'code')!r}) was called"
        else:
            message = str(exc)
        if not issubclass(type(message), str):
            message = "<the exception's message is not text>"
        message = str.__str__(message)
        if isinstance(exc, SyntaxError):
            syntax = _syntax_where(exc, sources)
            if syntax is not None:
                message, where = syntax
    except catch:  # a student exception whose __str__ (or __repr__ of its code) raises
        message = "<the exception's message could not be read>"
    return {"t": "error", "type": type_name, "message": message, "where": where}


def _syntax_where(
    exc: SyntaxError, sources: Mapping[str, tuple[str, ...]]
) -> tuple[str, dict[str, Any]] | None:
    filename, lineno, text, msg = exc.filename, exc.lineno, exc.text, exc.msg
    if not (
        issubclass(type(filename), str)
        and str.__str__(filename) in sources
        and type(lineno) is int
        and lineno
    ):
        return None
    lines = sources[str.__str__(filename)]
    shown = str.__str__(text) if issubclass(type(text), str) and text else _line(lines, lineno)
    return (
        str.__str__(msg) if issubclass(type(msg), str) else "invalid syntax",
        {"line": lineno, "function": "<module>", "text": shown, "file": str.__str__(filename)},
    )


def _name(kind: type) -> str:
    name = _NAME(kind)  # type's own descriptor: a metaclass's __name__ runs no code here
    return str.__str__(name) if issubclass(type(name), str) else "Exception"


_NAME = type.__dict__["__name__"].__get__


def _where(
    tb: TracebackType | None, sources: Mapping[str, tuple[str, ...]]
) -> dict[str, Any] | None:
    found: dict[str, Any] | None = None
    for frame, lineno in walk_tb(tb):
        code = frame.f_code
        name = code.co_filename
        if name in sources:
            found = {
                "line": lineno,
                "function": code.co_name,
                "text": _line(sources[name], lineno),
                "file": name,
            }
    return found


def _line(lines: tuple[str, ...], lineno: int) -> str:
    return lines[lineno - 1] if 0 < lineno <= len(lines) else ""
