"""A library's tensor read as the graph of ops that made it (grader.core.values.Traced's wire form).

The child reads, for each node, the op's class name and plain settings, the nodes it was made from,
and the value the submission's own ops compute for it; the trusted side evaluates every op the
exercise does not grade again with the course's reference (grader.judge.library.standin), so one
broken op costs only its own points. Reading runs the submission's code (its attributes, its
compute): anything it raises is that node's error, and the walk is iterative and bounded in nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from grader.core.values import MAX_NODES

_MRO = type.__dict__["__mro__"].__get__
_NAME = type.__dict__["__name__"].__get__
_MODULE = type.__dict__["__module__"].__get__
_GET = object.__getattribute__
#: the kinds of plain data an op's setting may be (an axis, a shape, a scalar)
_PLAIN = frozenset({"num", "bool", "none", "str", "list", "tuple"})

Reader = Callable[[object], dict[str, Any]]


def graph_reader(
    node_class: type,
    names: Mapping[str, str],
    data_of: Reader,
    error_of: Callable[[BaseException], dict[str, Any]],
) -> Reader:
    """A reader of observations: instances of `node_class` as graphs, anything else as `data_of`
    reads it. `names`: the graph's attribute names (grader.core.library.Graph: op, inputs,
    realize)."""

    def one(obj: object) -> dict[str, Any]:
        if not is_node(type(obj), node_class):
            return data_of(obj)
        return _graph(obj, node_class, names, data_of, error_of)

    def read(obj: object) -> dict[str, Any]:
        kind = type(obj)
        items: Any = obj
        if (kind is list or kind is tuple) and len(items) <= 64:
            listed = [one(item) for item in items]
            return {"t": "list" if kind is list else "tuple", "v": listed}
        return one(obj)

    return read


def _graph(
    root: object,
    node_class: type,
    names: Mapping[str, str],
    data_of: Reader,
    error_of: Callable[[BaseException], dict[str, Any]],
) -> dict[str, Any]:
    order = _order(root, node_class, names["op"], names["inputs"])
    if isinstance(order, str):
        return {"t": "object", "type": _NAME(type(root)), "repr": order}
    position = {id(node): i for i, (node, _) in enumerate(order)}
    nodes = []
    for node, parents in order:
        op = _attribute(node, names["op"])
        # minitorch's history names the function's class; needle an op object
        is_class = type in _MRO(type(op))
        nodes.append(
            {
                "op": None if op is None else str.__str__(_NAME(op if is_class else type(op))),
                "settings": {} if is_class else _settings(op, data_of),
                "inputs": [position[id(p)] for p in parents],
                "value": _value(node, names["realize"], data_of, error_of),
            }
        )
    return {"t": "graph", "nodes": nodes}


def _order(
    root: object, node_class: type, op: str, inputs: str
) -> list[tuple[object, list[object]]] | str:
    """The nodes under `root`, each after the nodes it was made from, with those; or why they cannot
    be read. A node without an op is a leaf, whatever its inputs hold."""
    order: list[tuple[object, list[object]]] = []
    done: set[int] = set()
    on_path: set[int] = set()
    stack: list[tuple[object, list[object] | None]] = [(root, None)]
    keep = []  # every node stays alive while its id is a key
    while stack:
        node, parents = stack.pop()
        if parents is not None:
            on_path.discard(id(node))
            if id(node) not in done:
                done.add(id(node))
                order.append((node, parents))
            continue
        if id(node) in done:
            continue
        if id(node) in on_path:
            return "a graph with a cycle"
        if len(done) + len(stack) > MAX_NODES:
            return f"a graph of more than {MAX_NODES} nodes"
        found = [] if _attribute(node, op) is None else _attribute(node, inputs)
        if type(found) not in (list, tuple):
            return f"a node whose {inputs} is not a list"
        parents = list(found)
        for parent in parents:
            if not is_node(type(parent), node_class):
                return f"a node made from something that is not a node ({_NAME(type(parent))})"
        keep.append(node)
        on_path.add(id(node))
        stack.append((node, parents))
        stack.extend((parent, None) for parent in reversed(parents) if id(parent) not in done)
    return order


def is_node(kind: type, node_class: type) -> bool:
    """Whether instances of `kind` are graph nodes: subclasses of the node class, or of the same
    class imported a second time under a longer name (`from python.needle.ops import *` beside
    `import needle`, as a student's repository may do; pytest run from its root finds both)."""
    mro = _MRO(kind)
    if node_class in mro:
        return True
    name, module = _NAME(node_class), _MODULE(node_class)
    for base in mro:
        if _NAME(base) == name:
            found = _MODULE(base)
            if type(found) is str and found.endswith("." + module):
                return True
    return False


def _attribute(obj: object, dotted: str) -> Any:
    """The attribute at a dotted path (history.last_fn), or None where the path ends early or
    raises."""
    found: Any = obj
    for name in dotted.split("."):
        if found is None:
            return None
        try:
            found = getattr(found, name)
        except BaseException:  # noqa: BLE001 - the submission's attribute raised: no value there
            return None
    return found


def _settings(op: object, data_of: Reader) -> dict[str, Any]:
    """The op's own plain attributes (axes, shape, scalar), as its instance holds them."""
    if op is None:
        return {}
    try:
        own = _GET(op, "__dict__")
    except BaseException:  # noqa: BLE001 - an op with slots, or one that hides its dict
        return {}
    settings: dict[str, Any] = {}
    if type(own) is not dict:
        return settings
    for key in list(own)[:16]:
        if type(key) is not str:
            continue
        try:
            data = data_of(own[key])
        except BaseException:  # noqa: BLE001 - the submission's object
            continue
        if data["t"] in _PLAIN:
            settings[str.__str__(key)] = data
    return settings


def _value(
    node: object, realize: str, data_of: Reader, error_of: Callable[[BaseException], dict[str, Any]]
) -> dict[str, Any]:
    try:
        return data_of(_realized(node, realize))
    except BaseException as exc:  # noqa: BLE001 - the submission's own ops computing it
        return error_of(exc)


def _realized(node: object, realize: str) -> object:
    """A node's value: the attribute `realize` (minitorch's data), called where it is a method
    (needle's realize_cached_data)."""
    found = getattr(node, realize)
    return found() if callable(found) else found


def value_reader(node_class: type, realize: str, data_of: Reader) -> Reader:
    """A reader of the reference's own tensors (the trusted side): each one's value, computed by the
    reference."""

    def one(obj: object) -> dict[str, Any]:
        if node_class not in _MRO(type(obj)):
            return data_of(obj)
        return data_of(_realized(obj, realize))

    def read(obj: object) -> dict[str, Any]:
        kind = type(obj)
        items: Any = obj
        if (kind is list or kind is tuple) and len(items) <= 64:
            listed = [one(item) for item in items]
            return {"t": "list" if kind is list else "tuple", "v": listed}
        return one(obj)

    return read
