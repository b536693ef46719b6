"""In the child, for exercises with `forbid_complex`: whether the submission's code computed with
complex numbers.

A complex step (f(x + ih).imag / h) gives every derivative to machine precision without deriving
one, so an exercise that means "by hand" (manual-backprop) may forbid complex numbers. A profile
function, set before the submission runs (the guard refuses the submission's own `sys.setprofile`),
looks at the arguments, locals and return value of every function the submission defines as it is
called and returns, for a Python complex, a numpy complex scalar or array, or a complex tensor, in
them or in the lists, tuples and dicts they hold. It watches from the moment the submission loads,
and a sighting is never forgotten: probes share their inputs, and a complex step taken in one and
kept for the next would otherwise be seen in the first only. What it finds is kept in a generator's
locals, out of reach like the autograd record (grader.run.child.evidence): the profile function the
submission can get with `sys.getprofile()` has no cells or globals to rebind, and only adds
sightings.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

#: how deep into containers, and how many of their items, a look goes
DEPTH, ITEMS = 3, 64


def record_complex(trusted: Sequence[str]) -> tuple[Callable[..., Any], ...]:
    """A record as grader.run.child.evidence.record_autograd's (watch, enter, leave, report); the
    evidence's `complex`.

    `trusted`: the folders of code that is not the submission's (the standard library, packages, the
    grader); all other code is watched: the submission's files and cells, and whatever it compiles
    and runs itself."""
    token = object()
    record = _record(token, _looker())
    next(record)
    send = record.send
    sys.setprofile(
        _profile_function((*(f.rstrip("/") + "/" for f in trusted), "<probe ", "<frozen "), send)
    )

    def nothing(*args: Any) -> None:
        return None

    def report(inputs: Mapping[str, Any]) -> dict[str, Any]:
        """Where complex numbers were first seen in this run, if anywhere: from loading on, and
        never forgotten, so that one probe's complex step kept for the next probes (which share
        their inputs) is seen in each."""
        return {"complex": send((token, "take"))}

    return nothing, nothing, nothing, report


def _profile(frame: Any, event: str, arg: Any) -> None:
    if (event == "call" or event == "return") and not frame.f_code.co_filename.startswith(
        "@TRUSTED@"
    ):
        deliver: Any = "@SEND@"  # both constants are replaced (_profile_function)
        deliver((frame, event, arg))


def _profile_function(
    trusted: tuple[str, ...], send: Callable[[Any], Any]
) -> Callable[[Any, str, Any], None]:
    """The profile function, with what it needs among its code's constants: it has no closure cells,
    defaults or globals, which a submission could rebind through `sys.getprofile()` to turn the
    watch off."""
    code = _profile.__code__
    consts = tuple(
        trusted if c == "@TRUSTED@" else send if c == "@SEND@" else c for c in code.co_consts
    )
    made: Callable[[Any, str, Any], None] = types.FunctionType(
        code.replace(co_consts=consts), {"__builtins__": {}}
    )
    return made


def _record(token: object, looks_complex: Callable[[Any, int], bool]) -> Generator[Any, Any, None]:
    """Where complex numbers were first seen ("in forward(), line 12"), or ""."""
    type_, len_, str_ = type, len, str
    seen = ""
    answer: Any = None
    while True:
        try:
            message = yield answer
        except BaseException:  # noqa: BLE001 - thrown in by the submission: the record goes on
            continue
        answer = None
        if type_(message) is not tuple or len_(message) not in (2, 3):
            continue
        if message[0] is token:
            if message[1] == "take":
                answer = seen
        elif not seen and len_(message) == 3:
            frame, event, arg = message
            try:
                values = list(frame.f_locals.values()) + ([arg] if event == "return" else [])
                if any(looks_complex(v, 0) for v in values):
                    seen = f"in {str_(frame.f_code.co_name)[:60]}(), line {frame.f_lineno}"
            except Exception:  # noqa: BLE001 - a frame or value it cannot read: nothing seen
                continue


def _looker() -> Callable[[Any, int], bool]:
    """Whether a value is, or holds, a complex number: read through the base types, never a
    submission's."""
    numpy = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    type_, complex_, len_ = type, complex, len
    ndarray = numpy.ndarray if numpy is not None else None
    generic = numpy.complexfloating if numpy is not None else None
    dtype_of = numpy.ndarray.dtype.__get__ if numpy is not None else None
    tensor = torch.Tensor if torch is not None else None
    tensor_complex = torch._C.TensorBase.is_complex if torch is not None else None
    containers = (list, tuple)

    def looks(value: Any, depth: int) -> bool:
        kind = type_(value)
        if issubclass(kind, complex_):
            return True
        if ndarray is not None and issubclass(kind, ndarray):
            return bool(dtype_of(value).kind == "c")  # type: ignore[misc]
        if generic is not None and issubclass(kind, generic):
            return True
        if tensor is not None and issubclass(kind, tensor):
            return bool(tensor_complex(value))  # type: ignore[misc]
        if depth >= DEPTH:
            return False
        if kind in containers:
            return len_(value) > 0 and any(looks(v, depth + 1) for v in value[:ITEMS])
        if kind is dict:
            return any(looks(v, depth + 1) for v in list(dict.values(value))[:ITEMS])
        return False

    return looks
