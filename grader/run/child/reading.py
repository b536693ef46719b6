"""Python object -> plain data: in the child (on student objects) and in the oracle (on ours),
reading numbers through the base types' own methods, never a submission's, and within caps on depth,
items and text.

`data_of` gives the reply's wire form (the dicts of grader.core.values.to_data) and makes no object
of the grader's own classes, whose attributes a submission could reach and rebind
(`object.__subclasses__()`); the trusted side reads Values through `from_python`. In the child,
numpy, torch and the methods used to read their arrays are bound (`bind`) before any submission
runs: one that patches them, or puts a placeholder where torch was, changes only what it calls
itself.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from grader.core.values import MAX_DEPTH, MAX_ITEMS, Value, clip, from_data

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_INF = math.inf

#: numpy, torch and what is read of them, once bound (the child); empty: looked up as they are
#: imported (the trusted side, which runs no submission)
_BOUND: dict[str, Any] = {}
#: torch.Tensor's own methods, taken before any submission runs: one that patches the class later
#: changes only what it calls itself, never how the grader reads a tensor
_TENSOR: dict[str, Any] = {}
#: what a student's __repr__ may raise and still be only the student's: anything, in the child
#: (`bind`)
_CATCH: list[type[BaseException]] = [Exception]


def bind() -> None:
    """In the child, before any submission runs: numpy's and torch's types and methods, as loaded
    now."""
    np, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    _BOUND.update(bound=True, np=np, torch=torch)
    if np is not None:
        _BOUND.update(_numpy_names(np))
    if torch is not None:
        bind_tensor_methods(torch.Tensor)
        _BOUND.update(_torch_names(torch))
    _CATCH[0] = BaseException


def bind_tensor_methods(tensor: type) -> None:
    for name in (
        "detach",
        "is_complex",
        "numel",
        "to",
        "reshape",
        "tolist",
        "size",
        "requires_grad_",
    ):
        _TENSOR.setdefault(name, getattr(tensor, name))
    for name in ("dtype", "device"):
        _TENSOR.setdefault(name, getattr(tensor, name).__get__)


def from_python(obj: object) -> Value:
    """The trusted side's reading: a Value."""
    return from_data(data_of(obj))


def data_of(obj: object) -> dict[str, Any]:
    """Turn a Python object into plain data (the reply's wire form), reading numbers without calling
    student methods."""
    budget = [MAX_ITEMS]
    return _data(obj, 0, budget)


def _modules() -> dict[str, Any]:
    if _BOUND:
        return _BOUND
    np, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    found: dict[str, Any] = {"np": np, "torch": torch}
    if np is not None:
        found.update(_numpy_names(np))
    if torch is not None:
        found.update(_torch_names(torch))
    return found


def _numpy_names(np: Any) -> dict[str, Any]:
    """numpy's types and methods the reading uses, as `np` holds them now."""
    return {
        "generic": np.generic,
        "bool_": np.bool_,
        "number": (np.integer, np.floating),
        "ndarray": np.ndarray,
        "view": np.ndarray.view,
        "float64": np.float64,
        "astype": np.ndarray.astype,
        "reshape": np.ndarray.reshape,
        "tolist": np.ndarray.tolist,
    }


def _torch_names(torch: Any) -> dict[str, Any]:
    """torch's types the reading uses, as `torch` holds them now."""
    return {"tensors": (torch.Tensor, torch.nn.Parameter), "torch_float64": torch.float64}


def tensor_method(name: str) -> Any:
    """torch.Tensor's method `name`, as bound before any submission ran (bind_tensor_methods)."""
    return _tensor(name, _modules()["torch"])


def _tensor(name: str, torch: Any) -> Any:
    method = _TENSOR.get(name)
    if method is not None:
        return method
    attribute = getattr(torch.Tensor, name)
    return attribute.__get__ if name in ("dtype", "device") else attribute


def tensor_numbers(tensor: Any) -> tuple[float, ...]:
    """A tensor's elements as float64 numbers, in row-major order, read through the bound
    methods."""
    found = _modules()
    torch = found["torch"]
    t = _tensor("detach", torch)(tensor)
    flat = _tensor("reshape", torch)(
        _tensor("to", torch)(t, device="cpu", dtype=found["torch_float64"]), -1
    )
    return tuple(_tensor("tolist", torch)(flat))


def _number(value: float) -> dict[str, Any]:
    return {"t": "num", "v": value}


def _data(obj: object, depth: int, budget: list[int]) -> dict[str, Any]:
    # Dispatch on type(obj), never obj.__class__, which an object can fake.
    kind = type(obj)
    if kind is bool:
        return {"t": "bool", "v": obj is True}
    if issubclass(kind, float):
        # float.__float__ reads the stored double, whatever a subclass overrides.
        return _number(float.__float__(obj))  # type: ignore[arg-type]
    if issubclass(kind, int):
        whole = int.__index__(obj)  # type: ignore[arg-type]
        try:
            return _number(int.__float__(whole))
        except OverflowError:
            return _number(_INF if whole > 0 else -_INF)
    if obj is None:
        return {"t": "none"}
    if issubclass(kind, str):
        return {"t": "str", "v": clip(str.__str__(obj))}
    if kind is list or kind is tuple:
        name = "list" if kind is list else "tuple"
        if depth >= MAX_DEPTH:
            return _opaque(name, f"a {name} nested more than {MAX_DEPTH} deep")
        items: list[dict[str, Any]] = []
        for item in obj:  # type: ignore[attr-defined]
            budget[0] -= 1
            if budget[0] < 0:
                return _opaque(name, f"a {name} with more than {MAX_ITEMS} items")
            items.append(_data(item, depth + 1, budget))
        return {"t": name, "v": items}
    array = _array_from(obj, kind, budget)
    if array is not None:
        return array
    return _opaque(_type_name(obj), _safe_repr(obj))


def _opaque(type_name: str, text: str) -> dict[str, Any]:
    return {"t": "object", "type": type_name, "repr": text}


def _array_from(obj: object, kind: type, budget: list[int]) -> dict[str, Any] | None:
    """Tensors and ndarrays of exact (or well-known) types, read through the base classes'
    methods."""
    found = _modules()
    torch = found["torch"]
    if torch is not None and kind in found["tensors"]:
        t = _tensor("detach", torch)(obj)
        shape = [int.__index__(n) for n in _tensor("size", torch)(t)]
        if _tensor("is_complex", torch)(t):
            return _opaque("Tensor", f"a complex tensor of shape {tuple(shape)}")
        count = _tensor("numel", torch)(t)
        if count > budget[0]:
            return _opaque("Tensor", f"a tensor with {count} elements (too many to send)")
        budget[0] -= count
        dtype = str.__str__(str(_tensor("dtype", torch)(t))).removeprefix("torch.")
        return {
            "t": "array",
            "shape": shape,
            "v": list(tensor_numbers(t)),
            "dtype": dtype,
            "device": str.__str__(str(_tensor("device", torch)(t))),
        }
    if found["np"] is None:
        return None
    if issubclass(kind, found["generic"]):
        if issubclass(kind, found["bool_"]):
            return {"t": "bool", "v": bool(obj)}
        if issubclass(kind, found["number"]):
            return _number(float.__float__(float(obj)))  # type: ignore[arg-type]
        return _opaque(_type_name(obj), _safe_repr(obj))
    if issubclass(kind, found["ndarray"]):
        arr = found["view"](obj, found["ndarray"])
        dtype = arr.dtype
        if dtype.kind not in "biuf":
            return _opaque("ndarray", f"an array of dtype {dtype}")
        size = arr.size
        if size > budget[0]:
            return _opaque("ndarray", f"an array with {size} elements (too many to send)")
        budget[0] -= size
        flat = found["tolist"](found["reshape"](found["astype"](arr, found["float64"]), -1))
        return {
            "t": "array",
            "shape": [int.__index__(n) for n in arr.shape],
            "v": flat,
            "dtype": str(dtype),
            "device": "cpu",
        }
    return None


def _type_name(obj: object) -> str:
    """The name of `obj`'s type, read by type's own descriptor: a metaclass's `__name__` runs no
    code here."""
    name = _NAME(type(obj))
    return str.__str__(name) if issubclass(type(name), str) else "object"


_NAME = type.__dict__["__name__"].__get__


def _safe_repr(obj: object) -> str:
    try:
        text = repr(obj)
    except _CATCH[0] as exc:  # a student's __repr__ may raise anything, SystemExit too
        return f"<{_type_name(obj)} object; its repr() raised {_type_name(exc)}>"
    if not issubclass(type(text), str):
        return "<unprintable>"
    # Addresses change from run to run; reports must not.
    return clip(_ADDRESS.sub("", str.__str__(text)), 200)
