"""Operations a course adds to the reference scalar
engine: its exercises folder's `reference_ops.py`.

The file is the course's own trusted code, like a torch exercise's solution, and is loaded here
in the grading process only (never in a child). It holds a mapping `OPS`, one entry per method:

    OPS = {"abs": {"forward": abs_forward, "torch": lambda x: x.abs(), "domain": "nonzero"}}

`forward(*values)` returns the result's value and its local slope to each operand (as
`reference/scalar.py` stores each operation beside its slopes); `torch(*tensors)` is
the same operation in torch, for the float64 twin. `arity` counts the operands, the
node itself included (default 1: `x.abs()`); `domain` (`any`, `positive` or
`nonzero`) is where validate draws the values it proves the op at.
"""

from __future__ import annotations

import random
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from grader.core.errors import GraderError
from grader.core.numeric import ENGINE_AGREEMENT, FD_AGREEMENT, FD_EPS

Domain = Literal["any", "positive", "nonzero"]
DOMAINS = ("any", "positive", "nonzero")
#: points at which `grade validate` proves each added operation
PROOF_POINTS = 8


@dataclass(frozen=True, slots=True)
class CourseOp:
    """One added method: its value and local slopes, and the same operation in torch."""

    name: str
    forward: Callable[..., tuple[float, Sequence[float]]]
    torch: Callable[..., Any]
    arity: int
    domain: Domain
    path: Path
    line: int

    @property
    def where(self) -> str:
        return f"{self.path}, line {self.line}: OPS[{self.name!r}]"


def load_ops(path: Path | None) -> tuple[CourseOp, ...]:
    """The operations `path` adds (none for None); a malformed file is a `GraderError` naming it."""
    if path is None:
        return ()
    return _load(path, path.read_text(encoding="utf-8"))


@cache
def _load(path: Path, source: str) -> tuple[CourseOp, ...]:
    module = types.ModuleType(f"course_ops_{path.parent.name.replace('-', '_')}")
    module.__file__ = str(path)
    try:
        exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    except Exception as exc:  # noqa: BLE001 - the course's file: say what broke, in its words
        raise GraderError(f"{path}: cannot be loaded: {type(exc).__name__}: {exc}.") from None
    table = getattr(module, "OPS", None)
    if not isinstance(table, dict):
        raise GraderError(
            f"{path}: defines no OPS mapping; it needs OPS = {{'name': {{'forward': ..., "
            f"'torch': ...}}}} (see docs/authoring.md)."
        )
    return tuple(_op(path, name, entry) for name, entry in table.items())


def _op(path: Path, name: object, entry: object) -> CourseOp:
    """One entry of OPS, checked: a plain new method name, and its functions."""
    from reference.scalar import Node

    at = f"{path}: OPS[{name!r}]"
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise GraderError(f"{at}: an operation's name must be a plain method name (abs, maximum).")
    if hasattr(Node, name):
        raise GraderError(
            f"{at}: the reference engine has {name} already; a course adds new operations only."
        )
    if (
        not isinstance(entry, dict)
        or not callable(entry.get("forward"))
        or not callable(entry.get("torch"))
    ):
        raise GraderError(
            f"{at}: needs 'forward' (values -> (value, slopes)) "
            "and 'torch' (tensors -> tensor), both functions."
        )
    unknown = sorted(set(entry) - {"forward", "torch", "arity", "domain"})
    if unknown:
        raise GraderError(
            f"{at}: unknown key {unknown[0]!r}; the keys are forward, torch, arity, domain."
        )
    arity, domain = entry.get("arity", 1), entry.get("domain", "any")
    if not isinstance(arity, int) or arity < 1:
        raise GraderError(
            f"{at}: 'arity' is the number of operands, the node itself included (1 or more)."
        )
    if domain not in DOMAINS:
        raise GraderError(f"{at}: 'domain' must be one of {', '.join(DOMAINS)}; got {domain!r}.")
    code = getattr(entry["forward"], "__code__", None)
    line = code.co_firstlineno if code is not None else 1
    return CourseOp(name, entry["forward"], entry["torch"], arity, domain, path, line)


#: one class per engine and course, so that a probe's nodes
#: are all of one class however often it is asked for
_EXTENDED: dict[tuple[type[Any], tuple[CourseOp, ...]], type[Any]] = {}


def with_ops(engine: type[Any], ops: tuple[CourseOp, ...]) -> type[Any]:
    """`engine` (the reference or its torch twin, in
    the lessons' names) with the course's methods."""
    if not ops:
        return engine
    if (engine, ops) not in _EXTENDED:
        on_torch = hasattr(
            engine, "_make"
        )  # the torch twin builds nodes from tensors; the reference from values
        methods = {op.name: (_torch_method if on_torch else _reference_method)(op) for op in ops}
        _EXTENDED[engine, ops] = type(engine.__name__, (engine,), {"__slots__": (), **methods})
    return _EXTENDED[engine, ops]


def _reference_method(op: CourseOp) -> Callable[..., Any]:
    def method(self: Any, *args: Any) -> Any:
        operands = (self, *(self._lift(a) for a in args))
        value, slopes = op.forward(*(o.value for o in operands))
        return type(self)(value, operands, tuple(float(s) for s in slopes))

    method.__name__ = op.name
    return method


def _torch_method(op: CourseOp) -> Callable[..., Any]:
    def method(self: Any, *args: Any) -> Any:
        operands = (self, *(self._lift(a) for a in args))
        return self._make(op.torch(*(o.tensor for o in operands)))

    method.__name__ = op.name
    return method


def prove(op: CourseOp, points: int = PROOF_POINTS) -> list[str]:
    """What is wrong with `op` at a few drawn points: its value or
    slopes against torch float64, its slopes against central differences
    of its own value. Empty when it is right everywhere tried."""
    import torch

    rng = random.Random(f"course-op/{op.name}")
    for _ in range(points):
        values = [_draw(rng, op.domain) for _ in range(op.arity)]
        shown = ", ".join(f"{v:.4g}" for v in values)
        try:
            value, slopes = op.forward(*values)
            slopes = [float(s) for s in slopes]
        except Exception as exc:  # noqa: BLE001 - the course's code
            return [f"{op.where}: forward({shown}) raised {type(exc).__name__}: {exc}"]
        if len(slopes) != op.arity:
            return [
                f"{op.where}: forward({shown}) gives {len(slopes)} slopes for {op.arity} "
                "operand(s); give one per operand (set 'arity' for more than the node itself)"
            ]
        tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
        out = op.torch(*tensors)
        out.backward()
        want = [0.0 if t.grad is None else float(t.grad) for t in tensors]
        if not ENGINE_AGREEMENT.close(float(value), float(out.detach())):
            return [
                f"{op.where}: at ({shown}) the value is "
                f"{value:.8g}, torch float64 gives {float(out):.8g}"
            ]
        for i, (slope, torch_slope) in enumerate(zip(slopes, want, strict=True)):
            if not ENGINE_AGREEMENT.close(slope, torch_slope):
                return [
                    f"{op.where}: at ({shown}) the slope to operand {i} is "
                    f"{slope:.8g}, torch float64 gives {torch_slope:.8g}"
                ]
            plus = [v + FD_EPS if j == i else v for j, v in enumerate(values)]
            minus = [v - FD_EPS if j == i else v for j, v in enumerate(values)]
            numeric = (op.forward(*plus)[0] - op.forward(*minus)[0]) / (2 * FD_EPS)
            if not FD_AGREEMENT.close(numeric, slope):
                return [
                    f"{op.where}: at ({shown}) the slope to operand {i} is "
                    f"{slope:.8g}, central differences give {numeric:.8g}"
                ]
    return []


def _draw(rng: random.Random, domain: Domain) -> float:
    magnitude = round(rng.uniform(0.3, 3.0), 3)
    if domain == "positive":
        return magnitude
    return magnitude if rng.random() < 0.5 else -magnitude


def proven_line(ops: Sequence[CourseOp]) -> str:
    names = ", ".join(op.name for op in ops)
    return (
        f"the course's added operations ({names}) agree with torch "
        f"float64 and central differences at {PROOF_POINTS} points each"
    )
