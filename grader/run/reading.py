"""Python object -> Value: in the child (on student objects) and in the oracle (on ours), reading numbers
through the base types' own methods, never a submission's, and within caps on depth, items and text."""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from grader.core.values import (
    MAX_DEPTH,
    MAX_ITEMS,
    Array,
    Flag,
    Jacobians,
    Nothing,
    Number,
    Opaque,
    Seq,
    Text,
    Value,
    clip,
)

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def from_python(obj: object) -> Value:
    """Turn a Python object into plain data, reading numbers without calling student methods."""
    if type(obj) is Jacobians:
        return Text(obj.verdict())
    budget = [MAX_ITEMS]
    return _from_python(obj, 0, budget)


#: torch.Tensor's own methods, taken before any submission runs (grader.run.probe_tools binds them): one that
#: patches the class later changes only what it calls itself, never how the grader reads a tensor
_TENSOR: dict[str, Any] = {}


def bind_tensor_methods(tensor: type) -> None:
    for name in ("detach", "is_complex", "numel", "to", "reshape", "tolist", "size"):
        _TENSOR.setdefault(name, getattr(tensor, name))
    for name in ("dtype", "device"):
        _TENSOR.setdefault(name, getattr(tensor, name).__get__)


def _tensor(name: str, torch: Any) -> Any:
    method = _TENSOR.get(name)
    if method is not None:
        return method
    attribute = getattr(torch.Tensor, name)
    return attribute.__get__ if name in ("dtype", "device") else attribute


def tensor_numbers(tensor: Any) -> tuple[float, ...]:
    """A tensor's elements as float64 numbers, in row-major order, read through the bound methods."""
    import torch

    t = _tensor("detach", torch)(tensor)
    flat = _tensor("reshape", torch)(_tensor("to", torch)(t, device="cpu", dtype=torch.float64), -1)
    return tuple(float(x) for x in _tensor("tolist", torch)(flat))


def _from_python(obj: object, depth: int, budget: list[int]) -> Value:
    # Dispatch on type(obj), never obj.__class__, which an object can fake.
    kind = type(obj)
    if kind is bool:
        return Flag(obj is True)
    if issubclass(kind, float):
        # float.__float__ reads the stored double, whatever a subclass overrides.
        return Number(float.__float__(obj))  # type: ignore[arg-type]
    if issubclass(kind, int):
        whole = int.__index__(obj)  # type: ignore[arg-type]
        try:
            return Number(float(whole))
        except OverflowError:
            return Number(math.inf if whole > 0 else -math.inf)
    if obj is None:
        return Nothing()
    if issubclass(kind, str):
        return Text(clip(str.__str__(obj)))
    if kind is list or kind is tuple:
        if depth >= MAX_DEPTH:
            return Opaque(kind.__name__, f"a {kind.__name__} nested more than {MAX_DEPTH} deep")
        items: list[Value] = []
        for item in obj:  # type: ignore[attr-defined]
            budget[0] -= 1
            if budget[0] < 0:
                return Opaque(kind.__name__, f"a {kind.__name__} with more than {MAX_ITEMS} items")
            items.append(_from_python(item, depth + 1, budget))
        return Seq(tuple(items), "list" if kind is list else "tuple")
    array = _array_from(obj, budget)
    if array is not None:
        return array
    return Opaque(_type_name(obj), _safe_repr(obj))


def _array_from(obj: object, budget: list[int]) -> Value | None:
    """Tensors and ndarrays of exact (or well-known) types, read through the base classes' methods."""
    np = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    if torch is not None and type(obj) in (torch.Tensor, torch.nn.Parameter):
        t = _tensor("detach", torch)(obj)
        shape = tuple(int(n) for n in _tensor("size", torch)(t))
        if _tensor("is_complex", torch)(t):
            return Opaque("Tensor", f"a complex tensor of shape {shape}")
        count = _tensor("numel", torch)(t)
        if count > budget[0]:
            return Opaque("Tensor", f"a tensor with {count} elements (too many to send)")
        budget[0] -= count
        dtype = str(_tensor("dtype", torch)(t)).removeprefix("torch.")
        return Array(shape, tensor_numbers(t), dtype, str(_tensor("device", torch)(t)))
    kind = type(obj)
    if np is not None and issubclass(kind, np.generic):
        if issubclass(kind, np.bool_):
            return Flag(bool(obj))
        if issubclass(kind, (np.integer, np.floating)):
            return Number(float(obj))  # type: ignore[arg-type]
        return Opaque(kind.__name__, _safe_repr(obj))
    if np is not None and issubclass(kind, np.ndarray):
        arr = np.ndarray.view(obj, np.ndarray)
        if arr.dtype.kind not in "biuf":
            return Opaque("ndarray", f"an array of dtype {arr.dtype}")
        if arr.size > budget[0]:
            return Opaque("ndarray", f"an array with {arr.size} elements (too many to send)")
        budget[0] -= arr.size
        flat = arr.astype(np.float64).reshape(-1).tolist()
        return Array(tuple(int(n) for n in arr.shape), tuple(flat), str(arr.dtype), "cpu")
    return None


def _type_name(obj: object) -> str:
    name = type.__getattribute__(type(obj), "__name__")
    return name if isinstance(name, str) else "object"


def _safe_repr(obj: object) -> str:
    try:
        text = repr(obj)
    except Exception as exc:  # noqa: BLE001 - student __repr__ may raise anything
        return f"<{_type_name(obj)} object; its repr() raised {type(exc).__name__}>"
    if type(text) is not str:
        return "<unprintable>"
    # Addresses change from run to run; reports must not.
    return clip(_ADDRESS.sub("", text), 200)
