"""Inside the child: lay a student's package out in the run's folder, and find the objects its
exercises name.

The files are the course's files of the repository (grader.run.read.package), at their paths in it;
the folders the course names go on sys.path. An object is named by dotted path
(needle.ops.EWiseMul): the longest prefix that is a module is imported (the package's own code runs
then, under the guard), the rest is read as attributes. A package that cannot be imported costs the
names that need it, and says why, at the student's file and line.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

ErrorOf = Callable[[BaseException], dict[str, Any]]


def lay_out(
    files: Sequence[tuple[str, str]], import_paths: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    """Write `files` (path in the repository, text) under the current folder and put the course's
    import folders first on sys.path; each file's lines by its path in the repository (for errors'
    lines)."""
    top = os.getcwd()
    sources: dict[str, tuple[str, ...]] = {}
    for rel, text in files:
        # the trusted side refused any path that leads out (grader.run.read.package)
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        # its code is compiled under this name (child._StudentLoader)
        sources[rel] = tuple(text.splitlines())
    for folder in reversed(import_paths):
        sys.path.insert(0, os.path.normpath(os.path.join(top, folder)))
    return sources


def own_modules(files: Sequence[tuple[str, str]], import_paths: Sequence[str]) -> list[str]:
    """The top-level modules the package's files make, under each import folder and under the
    repository's root (the run's folder is on sys.path, as the root is for `python -m pytest`:
    `import python.needle.ops`)."""
    names = set()
    for rel, _ in files:
        for folder in (*import_paths, "."):
            prefix = "" if folder in (".", "") else folder.rstrip("/") + "/"
            if rel.startswith(prefix):
                first = rel[len(prefix) :].split("/")[0]
                names.add(first[:-3] if first.endswith(".py") else first)
    return sorted(n for n in names if n.isidentifier())


def resolve(dotted: str, error_of: ErrorOf) -> tuple[Any, str | None]:
    """The object at `dotted`, or (None, why not) in words: the error importing its module raised
    (with its file and line), or the attribute it lacks."""
    parts = dotted.split(".")
    module: Any = None
    depth = len(parts)
    while depth > 0:
        name = ".".join(parts[:depth])
        try:
            module = importlib.import_module(name)
            break
        except ModuleNotFoundError as exc:
            if exc.name is None or not (name == exc.name or name.startswith(exc.name + ".")):
                return None, _import_problem(exc, error_of)
            depth -= 1
        except BaseException as exc:  # noqa: BLE001 - the package's own code, run as it is imported
            return None, _import_problem(exc, error_of)
    if module is None:
        return None, f"no module {parts[0]} (the course's files of your repository make none)"
    found = module
    for part in parts[depth:]:
        try:
            found = getattr(found, part)
        except BaseException:  # noqa: BLE001 - a missing attribute, or the submission's __getattr__
            return None, f"nothing named {part} in {'.'.join(parts[:depth])}"
        depth += 1
    return found, None


def _import_problem(exc: BaseException, error_of: ErrorOf) -> str:
    data = error_of(exc)
    where = data.get("where")
    place = ""
    if where is not None:
        place = f" ({str.__str__(where['file'])}, line {where['line']})"
    return f"an error on import: {data['type']}: {str.__str__(data['message'])[:160]}{place}"


def set_flag(dotted: str | None, value: bool) -> Any:
    """Set a module's flag (needle.autograd.LAZY_MODE) and give back what it was; None where there
    is none."""
    if dotted is None:
        return None
    module_name, _, flag = dotted.rpartition(".")
    module = sys.modules.get(module_name)
    if module is None:
        return None
    try:
        before = getattr(module, flag)
        setattr(module, flag, value)
    except BaseException:  # noqa: BLE001 - the submission's module
        return None
    return before
