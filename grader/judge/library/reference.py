"""The course's reference package, imported in the grading process alone (it is the
course's trusted code, as a torch exercise's solution is) and kept out of `sys.modules`,
so that two courses' `needle` never meet and nothing imported later finds it by name."""

from __future__ import annotations

import importlib
import os
import sys
import threading
import types
from functools import cache
from pathlib import Path
from typing import Any

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.core.library import Library

_LOCK = threading.Lock()


def reference_names(exercise: Exercise) -> dict[str, object]:
    """What the probes see on the reference side: each name in `defines` by its last part."""
    library = exercise.library
    assert library is not None
    modules = reference_modules(library, package_tops(exercise))
    return {
        dotted.rpartition(".")[2]: resolve(modules, dotted, library)
        for dotted, _ in exercise.defines
    }


def reference_node(exercise: Exercise) -> type | None:
    """The reference's graph node class (needle's Value), for reading its results as graphs."""
    library = exercise.library
    if library is None or library.graph is None:
        return None
    found = resolve(reference_modules(library, package_tops(exercise)), library.graph.node, library)
    return found if isinstance(found, type) else None


def package_tops(exercise: Exercise) -> tuple[str, ...]:
    library = exercise.library
    assert library is not None
    dotted = [name for name, _ in exercise.defines]
    if library.graph is not None:
        dotted += [library.graph.node, *([library.graph.context] if library.graph.context else [])]
    return tuple(sorted({name.partition(".")[0] for name in dotted}))


def resolve(modules: dict[str, types.ModuleType], dotted: str, library: Library) -> object:
    parts = dotted.split(".")
    for depth in range(len(parts), 0, -1):
        module = modules.get(".".join(parts[:depth]))
        if module is None:
            continue
        found: Any = module
        for part in parts[depth:]:
            found = getattr(found, part, None)
        if found is None:
            break
        return found
    raise GraderError(
        f"{library.reference}: the course's reference has nothing at "
        f"{dotted}; an exercise names it in 'defines' (see docs/authoring.md)."
    )


@cache
def reference_modules(library: Library, tops: tuple[str, ...]) -> dict[str, types.ModuleType]:
    """The reference's modules under the top-level names
    `tops`, imported from its folder once per process."""
    reference = library.reference
    if reference is None:
        raise GraderError(
            "this course's pack holds no reference; grade with the course's own exercises."
        )
    paths = [os.path.normpath(reference / folder) for folder in library.import_paths]
    with _LOCK:
        saved_path = list(sys.path)
        saved = _take(tops)
        sys.path[:0] = paths
        importlib.invalidate_caches()
        try:
            for top in tops:
                importlib.import_module(top)
        # the course's own code: say what broke, in its words
        except Exception as exc:  # noqa: BLE001
            raise GraderError(
                f"{library.reference}: the course's reference cannot be imported: "
                f"{type(exc).__name__}: {exc}."
            ) from None
        finally:
            loaded = _take(tops)
            sys.modules.update(saved)
            sys.path[:] = saved_path
    outside = [
        name
        for name, module in loaded.items()
        if not Path(getattr(module, "__file__", "") or "").resolve().is_relative_to(reference)
    ]
    if outside:
        raise GraderError(
            f"{library.reference}: the reference's {outside[0]} was imported from outside "
            "its folder; name its packages so that nothing installed shadows them."
        )
    return loaded


def _take(tops: tuple[str, ...]) -> dict[str, types.ModuleType]:
    """The modules under `tops` in sys.modules, taken out of it."""
    taken = {name: module for name, module in sys.modules.items() if name.partition(".")[0] in tops}
    for name in taken:
        del sys.modules[name]
    return taken
