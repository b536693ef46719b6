"""An engine exercise's contract: the class name and the attribute names a course's engine uses.

The lessons' engine is `Node(value)` with `.value`, `.grad` and `backward()`; micrograd's is
`Value(data)` with `.data`. An exercise declares its course's names (`contract: {class:
Value, value: data}`) and its probes are written in them. The trusted engines (the
reference, its torch twin, the slipped and recording engines) keep their own names inside
and gain the contract's as aliases here, so one engine serves every contract. Probes written
once in the lessons' names (grader.judge.diagnose.localize's) are renamed to the contract's.
"""

from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Contract:
    """The names a submission's engine has: its class,
    and its value, gradient and backward attributes."""

    class_name: str = "Node"
    value: str = "value"
    grad: str = "grad"
    backward: str = "backward"

    @property
    def is_default(self) -> bool:
        return self == DEFAULT

    def attributes(self) -> dict[str, str]:
        """Our attribute name -> the contract's, for those that differ."""
        pairs = (("value", self.value), ("grad", self.grad), ("backward", self.backward))
        return {ours: theirs for ours, theirs in pairs if ours != theirs}

    def describe(self) -> str:
        return f"{self.class_name}(v) with .{self.value}, .{self.grad} and {self.backward}()"


DEFAULT = Contract()


def problems(contract: Contract, taken: frozenset[str]) -> list[tuple[str, str]]:
    """(field, what is wrong) for a contract the engines
    cannot serve; `taken` are the engine's other names."""
    found: list[tuple[str, str]] = []
    names = {"value": contract.value, "grad": contract.grad, "backward": contract.backward}
    for field, name in (("class", contract.class_name), *names.items()):
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__"):
            found.append((field, f"{name!r} is not a plain Python name"))
    for field, name in names.items():
        others = [f for f, n in names.items() if n == name and f != field]
        if others:
            found.append(
                (
                    field,
                    f"{name!r} is also the contract's {others[0]}; each attribute needs its own "
                    "name",
                )
            )
        elif name != field and name in taken:
            found.append(
                (
                    field,
                    f"{name!r} is already an operation or attribute of the reference engine; "
                    f"choose another name",
                )
            )
    return found


#: one class per engine and contract (a slipped engine is made once per slope: these stay few)
_ADAPTED: dict[tuple[type[Any], Contract], type[Any]] = {}


def adapt(engine: type[Any], contract: Contract) -> type[Any]:
    """`engine` (a trusted class in the lessons' names) with the contract's names as aliases.

    The subclass builds every new node of its own class (the engines make `type(self)(...)`), so a
    probe's intermediate nodes answer to the contract's names too.
    """
    if not contract.attributes():
        # the class's own name is never seen: a probe reaches it by the name it is bound to
        return engine
    if (engine, contract) not in _ADAPTED:
        _ADAPTED[engine, contract] = aliased(engine, contract)
    return _ADAPTED[engine, contract]


def aliased(engine: type[Any], contract: Contract) -> type[Any]:
    """A new subclass of `engine` with the contract's
    aliases (uncached: for engines made once per use)."""
    members: dict[str, object] = {"__slots__": ()}
    for ours, theirs in contract.attributes().items():
        members[theirs] = _method_alias(ours) if ours == "backward" else _property_alias(ours)
    return type(contract.class_name, (engine,), members)


def _property_alias(ours: str) -> property:
    def get(self: Any) -> Any:
        return getattr(self, ours)

    def put(self: Any, new: Any) -> None:
        setattr(self, ours, new)

    return property(get, put)


def _method_alias(ours: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, ours)(*args, **kwargs)

    return method


def rename(code: str, contract: Contract, mode: str = "exec") -> str:
    """Probe code written in the lessons' names (`Node(a)`, `out.value`), in the contract's."""
    if contract.is_default:
        return code
    tree = ast.parse(code, mode=mode)
    aliases = contract.attributes()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "Node":
            node.id = contract.class_name
        elif isinstance(node, ast.Attribute) and node.attr in aliases:
            node.attr = aliases[node.attr]
    return ast.unparse(tree)
