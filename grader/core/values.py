"""Plain data that crosses the sandbox boundary:
observed values, errors, and their strict JSON form."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

# Caps on what one value may hold; the reply as a whole is capped in bytes by the sandbox.
MAX_DEPTH = 16
MAX_ITEMS = 200_000
MAX_TEXT = 4_000


@dataclass(frozen=True, slots=True)
class Number:
    value: float


@dataclass(frozen=True, slots=True)
class Flag:
    value: bool


@dataclass(frozen=True, slots=True)
class Text:
    value: str


@dataclass(frozen=True, slots=True)
class Nothing:
    pass


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Value, ...]
    kind: Literal["list", "tuple"] = "list"


@dataclass(frozen=True, slots=True)
class Array:
    """A tensor or ndarray, flattened in row-major order."""

    shape: tuple[int, ...]
    data: tuple[float, ...]
    dtype: str = "float64"
    device: str = "cpu"


@dataclass(frozen=True, slots=True)
class Opaque:
    """Something that is not plain data (a `Node`, a function...): shown, never compared equal."""

    type_name: str
    text: str


@dataclass(frozen=True, slots=True)
class Where:
    """A place in the submission: 1-based line, the function, the line's
    text, and the cell ("cell 7"), or the file's name for a .py file."""

    line: int
    function: str
    text: str
    file: str = ""

    def describe(self) -> str:
        # a notebook's cell, or a package's file (its path
        # in the repository); a lone .py file goes without
        named = self.file.startswith("cell ") or "/" in self.file
        place = f"{self.file}, line {self.line}" if named else f"line {self.line}"
        if self.function not in ("<module>", ""):
            place += f", in {self.function}()"
        return f"{place}: {self.text.strip()}" if self.text.strip() else place


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An exception raised by student code, as data."""

    type_name: str
    message: str
    where: Where | None = None

    def describe(self) -> str:
        text = f"{self.type_name}: {self.message}" if self.message else self.type_name
        return text + (f" ({self.where.describe()})" if self.where is not None else "")


@dataclass(frozen=True, slots=True)
class TracedNode:
    """One node of a traced result: the op that made it (by its class's
    name; None on a leaf), the op's plain settings (axes, a scalar), the
    nodes it was made from, and what the submission's own ops computed."""

    op: str | None
    settings: tuple[tuple[str, Value], ...]
    inputs: tuple[int, ...]
    value: Value


@dataclass(frozen=True, slots=True)
class Traced:
    """A library's tensor and the graph of ops that made it, as the child read it: each node
    after the nodes it was made from, the result last. The trusted side evaluates it again with
    the course's reference ops (grader.judge.library.standin) before anything compares it."""

    nodes: tuple[TracedNode, ...]


Value = Number | Flag | Text | Nothing | Seq | Array | Opaque | ErrorInfo | Traced
#: nodes a traced result may hold
MAX_NODES = 2_000


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """`text` cut to `limit` characters, marked where it was cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------
# Value <-> JSON-ready data. `to_data` runs in the child; `from_data` parses untrusted replies.


class BadReply(ValueError):
    """The child's reply is not the plain data the protocol allows."""


def to_data(value: Value) -> dict[str, Any]:
    match value:
        case Number(v):
            return {"t": "num", "v": v}
        case Flag(v):
            return {"t": "bool", "v": v}
        case Text(v):
            return {"t": "str", "v": v}
        case Nothing():
            return {"t": "none"}
        case Seq(items, kind):
            return {"t": kind, "v": [to_data(item) for item in items]}
        case Array(shape, data, dtype, device):
            return {
                "t": "array",
                "shape": list(shape),
                "v": list(data),
                "dtype": dtype,
                "device": device,
            }
        case Opaque(type_name, text):
            return {"t": "object", "type": type_name, "repr": text}
        case ErrorInfo():
            return error_to_data(value)
        case Traced(nodes):
            return {
                "t": "graph",
                "nodes": [
                    {
                        "op": n.op,
                        "settings": {k: to_data(v) for k, v in n.settings},
                        "inputs": list(n.inputs),
                        "value": to_data(n.value),
                    }
                    for n in nodes
                ],
            }
    raise TypeError(f"not a Value: {value!r}")


def error_to_data(error: ErrorInfo) -> dict[str, Any]:
    where = error.where
    return {
        "t": "error",
        "type": error.type_name,
        "message": error.message,
        "where": None
        if where is None
        else {
            "line": where.line,
            "function": where.function,
            "text": where.text,
            "file": where.file,
        },
    }


def from_data(data: object, depth: int = 0, *, traced: bool = True) -> Value:
    """Parse one value of an untrusted reply: exact keys, exact types, bounded
    size; `traced`: whether a traced result may be in it (never inside another)."""
    if depth > MAX_DEPTH + 1:
        raise BadReply("value nested too deep")
    obj = _exact_dict(data)
    tag = obj.get("t")
    if tag == "num":
        _keys(obj, {"t", "v"})
        return Number(_number(obj["v"]))
    if tag == "bool":
        _keys(obj, {"t", "v"})
        if type(obj["v"]) is not bool:
            raise BadReply("bool value is not a boolean")
        return Flag(obj["v"])
    if tag == "str":
        _keys(obj, {"t", "v"})
        return Text(clip(_string(obj["v"])))
    if tag == "none":
        _keys(obj, {"t"})
        return Nothing()
    if tag in ("list", "tuple"):
        _keys(obj, {"t", "v"})
        items = obj["v"]
        if type(items) is not list or len(items) > MAX_ITEMS:
            raise BadReply("sequence items are not a list")
        parsed = tuple(from_data(item, depth + 1, traced=traced) for item in items)
        return Seq(parsed, "list" if tag == "list" else "tuple")
    if tag == "array":
        _keys(obj, {"t", "shape", "v", "dtype", "device"})
        shape, flat = obj["shape"], obj["v"]
        if (
            type(shape) is not list
            or not all(type(n) is int and 0 <= n for n in shape)
            or len(shape) > 16
        ):
            raise BadReply("array shape is not a list of sizes")
        if type(flat) is not list or len(flat) != math.prod(shape) or len(flat) > MAX_ITEMS:
            raise BadReply("array data does not match its shape")
        return Array(
            tuple(shape),
            tuple(_number(x) for x in flat),
            clip(_string(obj["dtype"]), 40),
            clip(_string(obj["device"]), 40),
        )
    if tag == "object":
        _keys(obj, {"t", "type", "repr"})
        return Opaque(clip(_string(obj["type"]), 100), clip(_string(obj["repr"]), 400))
    if tag == "error":
        return error_from_data(obj)
    if tag == "graph" and traced:
        _keys(obj, {"t", "nodes"})
        return _traced(obj["nodes"])
    raise BadReply(f"unknown value tag {tag!r}")


def _traced(nodes: object) -> Traced:
    """A traced result's nodes: each one's inputs come
    before it, and nothing in it is traced again."""
    if type(nodes) is not list or not 0 < len(nodes) <= MAX_NODES:
        raise BadReply("a traced result's nodes are not a list of at most MAX_NODES")
    parsed = []
    for index, item in enumerate(nodes):
        node = _exact_dict(item)
        _keys(node, {"op", "settings", "inputs", "value"})
        op, settings, inputs = node["op"], _exact_dict(node["settings"]), node["inputs"]
        if op is not None:
            op = clip(_string(op), 100)
        if type(inputs) is not list or not all(type(i) is int and 0 <= i < index for i in inputs):
            raise BadReply("a traced node's inputs are not earlier nodes")
        if len(settings) > 16:
            raise BadReply("a traced node has too many settings")
        plain = tuple(
            (clip(_string(key), 100), from_data(value, MAX_DEPTH - 2, traced=False))
            for key, value in settings.items()
        )
        parsed.append(
            TracedNode(op, plain, tuple(inputs), from_data(node["value"], 1, traced=False))
        )
    return Traced(tuple(parsed))


def error_from_data(data: object) -> ErrorInfo:
    obj = _exact_dict(data)
    _keys(obj, {"t", "type", "message", "where"})
    where = obj["where"]
    place: Where | None = None
    if where is not None:
        w = _exact_dict(where)
        _keys(w, {"line", "function", "text", "file"})
        if type(w["line"]) is not int:
            raise BadReply("error line is not an integer")
        place = Where(
            w["line"],
            clip(_string(w["function"]), 100),
            clip(_string(w["text"]), 300),
            clip(_string(w["file"]), 100),
        )
    return ErrorInfo(clip(_string(obj["type"]), 100), clip(_string(obj["message"]), 2000), place)


def _exact_dict(data: object) -> dict[str, Any]:
    if type(data) is not dict:
        raise BadReply("expected a JSON object")
    return data


def _keys(obj: dict[str, Any], keys: set[str]) -> None:
    if set(obj) != keys:
        raise BadReply(f"expected keys {sorted(keys)}, got {sorted(obj)}")


def _number(v: object) -> float:
    if type(v) is float:
        return v
    if type(v) is int:
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    raise BadReply("number is not a JSON number")


def _string(v: object) -> str:
    if type(v) is not str:
        raise BadReply("text is not a JSON string")
    return v
