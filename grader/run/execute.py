"""Run one probe's code on some engine and read its observations as plain data.

The sandboxed child runs this on the student's names; the oracle runs it on the reference ones.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from types import CodeType, TracebackType
from typing import Any

from grader.core.values import ErrorInfo, Value, Where
from grader.run.inputs import InputValue, TensorInput
from grader.run.reading import from_python


@dataclass(frozen=True, slots=True)
class CompiledProbe:
    name: str
    code: CodeType
    observe: tuple[tuple[str, CodeType], ...]


def compile_probe(name: str, code: str, observe: Mapping[str, str]) -> CompiledProbe:
    """Compile a probe's statements and observation expressions (trusted text from a spec)."""
    filename = f"<probe {name}>"
    return CompiledProbe(
        name,
        compile(code, filename, "exec", dont_inherit=True),
        tuple((label, compile(expr, filename, "eval", dont_inherit=True)) for label, expr in observe.items()),
    )


def namespace(engine: str, names: Mapping[str, object], inputs: Mapping[str, InputValue], device: str,
              torch_seed: int | None = None, helpers: Mapping[str, object] | None = None) -> dict[str, object]:
    """What a probe's code sees: the engine's names (student's or reference), the inputs, helpers.

    On the torch engine torch's generator is seeded per probe, so that random initialisations in
    the student's code and in the solution are the same draw. `helpers` (math, builtins, torch and
    gradcheck, or numpy) are the child's, taken before any submission code ran; the trusted side takes its own.
    """
    tools = helpers if helpers is not None else trusted_helpers(engine)
    scope: dict[str, object] = {"device": device, **tools}
    if engine == "torch":
        torch: Any = tools["torch"]
        if torch_seed is not None:
            torch.manual_seed(torch_seed)
    scope.update(names)
    scope.update({name: materialize(value, device, engine, tools) for name, value in inputs.items()})
    return scope


def trusted_helpers(engine: str) -> dict[str, object]:
    """The helpers as the trusted side binds them (no submission runs here)."""
    helpers: dict[str, object] = {"math": math}
    if engine == "torch":
        from grader.run import probe_tools

        helpers.update(torch=probe_tools.torch, gradcheck=probe_tools.gradcheck)
    elif engine == "tensor":  # numpy only: a tensor exercise's child never imports torch
        import numpy

        helpers["np"] = numpy
    return helpers


def materialize(value: InputValue, device: str, engine: str = "torch",
                helpers: Mapping[str, object] | None = None) -> object:
    """A fresh object for one run: tensors are made anew, so no run sees another's gradients.

    On the tensor engine a tensor input is a fresh numpy array, whichever engine the probe then builds on it.
    """
    if not isinstance(value, TensorInput):
        return value
    tools = helpers if helpers is not None else trusted_helpers(engine)
    if engine == "tensor":
        numpy: Any = tools["np"]
        return numpy.array(value.data, dtype=value.dtype).reshape(value.shape)
    torch: Any = tools["torch"]
    tensor = torch.tensor(value.data, dtype=getattr(torch, value.dtype), device=device).reshape(value.shape)
    return tensor.detach().requires_grad_(value.requires_grad)


def run_probe(
    probe: CompiledProbe,
    scope: dict[str, object],
    *,
    catch: type[BaseException] = Exception,
    sources: Mapping[str, tuple[str, ...]] | None = None,
) -> ErrorInfo | dict[str, Value]:
    """Run the probe in `scope`; return its observations, or the error that stopped it.

    The child passes `catch=BaseException` (student code may raise SystemExit and worse);
    the trusted side keeps the default so that Ctrl-C still stops the grader.
    """
    sources = sources or {}
    try:
        exec(probe.code, scope)
    except catch as exc:
        return describe_error(exc, sources)
    observations: dict[str, Value] = {}
    for label, expr in probe.observe:
        try:
            observations[label] = from_python(eval(expr, scope))
        except catch as exc:
            observations[label] = describe_error(exc, sources)
    return observations


def describe_error(exc: BaseException, sources: Mapping[str, tuple[str, ...]]) -> ErrorInfo:
    """An exception as data: its type, message, and the innermost line of the submission it came from.

    `sources` maps each compiled cell's label (the file name given to compile) to its lines.
    """
    type_name = type(exc).__name__
    if isinstance(exc, SystemExit):
        message = f"sys.exit({exc.code!r}) was called"
    else:
        try:
            message = str(exc)
        except Exception:  # noqa: BLE001 - a student exception whose __str__ raises
            message = "<the exception's message could not be read>"
    where = _where(exc.__traceback__, sources)
    if isinstance(exc, SyntaxError) and exc.filename is not None and exc.filename in sources and exc.lineno:
        message = exc.msg
        where = Where(exc.lineno, "<module>", exc.text or _line(sources[exc.filename], exc.lineno), exc.filename)
    return ErrorInfo(type_name, message, where)


def _where(tb: TracebackType | None, sources: Mapping[str, tuple[str, ...]]) -> Where | None:
    found: Where | None = None
    for frame, lineno in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name in sources:
            found = Where(lineno, frame.f_code.co_name, _line(sources[name], lineno), name)
    return found


def _line(lines: tuple[str, ...], lineno: int) -> str:
    return lines[lineno - 1] if 0 < lineno <= len(lines) else ""
