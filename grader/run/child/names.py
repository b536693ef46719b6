"""Inside the child: the names an exercise asks for, found in the submission's module or, for a
library, by dotted path in its package; and how a library exercise's observations are read."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from grader.run.child.execute import error_data
from grader.run.child.graph import graph_reader
from grader.run.child.package import resolve
from grader.run.child.reading import data_of

#: a module's own dict, whatever its class says
_DICT: Callable[[types.ModuleType], dict[str, Any]] = vars(types.ModuleType)["__dict__"].__get__
_NAME = type.__dict__["__name__"].__get__


def missing_names(
    module: types.ModuleType, defines: list[tuple[str, str]]
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """Names the exercise needs that the submission does not define as the right kind of thing, and
    the ones it does. Read from the module's own dict: whatever the submission's objects do while
    they are looked up (a key's __eq__, a class's metaclass) is the submission's, and costs the
    name."""
    missing, provided = [], {}
    names = _DICT(module)
    for name, kind in defines:
        try:
            value = names.get(name)
            if value is None:
                got = "nothing"
            elif kind == "class" and not isinstance(value, type):
                got = f"a {str.__str__(_NAME(type(value)))}, not a class"
            elif kind == "function" and not callable(value):
                got = f"a {str.__str__(_NAME(type(value)))}, not a function"
            else:
                provided[name] = value
                continue
        except BaseException:  # noqa: BLE001 - its own objects raised as they were read
            got = "something that could not be read"
        missing.append({"name": name, "kind": kind, "got": got})
    return missing, provided


def library_missing(
    defines: list[tuple[str, str]], sources: dict[str, tuple[str, ...]]
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """A library exercise's names, each found by its dotted path in the student's package (imported
    here, once asked for), bound in the probes by its last part."""
    missing, provided = [], {}
    for dotted, kind in defines:
        found, problem = resolve(dotted, functools.partial(error_data, sources=sources))
        if problem is None:
            if kind == "class" and not isinstance(found, type):
                problem = f"a {str.__str__(_NAME(type(found)))}, not a class"
            elif kind == "function" and not callable(found):
                problem = f"a {str.__str__(_NAME(type(found)))}, not a function"
        if problem is None:
            provided[dotted.rpartition(".")[2]] = found
        else:
            missing.append({"name": dotted, "kind": kind, "got": problem})
    return missing, provided


def reader(graph: dict[str, Any] | None, sources: dict[str, tuple[str, ...]]) -> Any:
    """How a library exercise's observations are read: its tensors as graphs, where the course says
    how."""
    if graph is None:
        return data_of
    node, problem = resolve(graph["node"], functools.partial(error_data, sources=sources))
    if problem is not None or not isinstance(node, type):
        return data_of
    return graph_reader(node, graph, data_of, functools.partial(error_data, sources=sources))
