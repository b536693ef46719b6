"""The course's own code as package submissions: its reference repository (`grade validate`'s solution), its
starter, and each known mistake, which is a one-function patch of the reference.

A mistake's file holds, beside its docstring (mistake, hint), the code it changes: a top-level function that
replaces the reference's function of that name, or a class whose methods replace those of the reference's
class of that name. The patched files are graded like a student's package, in the sandbox.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from functools import cache
from pathlib import Path

from grader.core.errors import SpecError
from grader.core.exercise import Exercise
from grader.core.library import Library
from grader.run.read.load import SourceCell, Submission, load_submission
from grader.run.read.package import read_package


def submission_of(exercise: Exercise, path: Path) -> Submission:
    """`path` as the exercise grades it: a library's repository or mistake as a package, any other as a file."""
    library = exercise.library
    if library is None:
        return load_submission(path)
    if path.is_dir():
        return read_package(path, library)
    return patched(library, path)


def patched(library: Library, mutant: Path) -> Submission:
    """The reference repository with the mistake's functions in place of its own."""
    return _patched(library, mutant, mutant.read_text(encoding="utf-8"))


@cache
def _patched(library: Library, mutant: Path, text: str) -> Submission:
    if library.reference is None:
        raise SpecError(f"{mutant}: a known mistake patches the course's reference, and this course has none.")
    reference = read_package(library.reference, library)
    files = {cell.label: cell.source for cell in reference.package}
    tree = ast.parse(text, str(mutant))
    lines = text.splitlines(keepends=True)
    imports = ""
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and getattr(node, "module", None) != "__future__":
            imports += "".join(lines[node.lineno - 1:node.end_lineno])
    changed: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            changed.add(_replace(files, mutant, None, node, text))
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    changed.add(_replace(files, mutant, node.name, member, text))
    for rel in changed:
        files[rel] = _with_imports(files[rel], imports)
    package = tuple(SourceCell(rel, source) for rel, source in sorted(files.items()))
    return dataclasses.replace(reference, path=mutant, name=mutant.name, package=package)


def _with_imports(source: str, imports: str) -> str:
    """`source` with the mistake's own imports (math, for a formula of its own) before its first definition."""
    if not imports:
        return source
    tree = ast.parse(source)
    first = next((node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom | ast.Expr)), None)
    lines = source.splitlines(keepends=True)
    at = len(lines)
    if first is not None:
        at = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))]) - 1
    return "".join(lines[:at]) + imports + "".join(lines[at:])


def _replace(files: dict[str, str], mutant: Path, owner: str | None, new: ast.FunctionDef | ast.AsyncFunctionDef,
             text: str) -> str:
    """Put `new` (a function, or a method of class `owner`) in place of the reference's one of its name; the file
    it went into."""
    where = f"{owner}.{new.name}" if owner else new.name
    found = []
    for rel, source in files.items():
        for old in _definitions(source, owner, new.name):
            found.append((rel, old))
    if len(found) != 1:
        count = "nothing" if not found else f"{len(found)} definitions"
        raise SpecError(f"{mutant}: replaces {where}, but the course's reference has {count} of that name; a "
                        f"known mistake patches one function of the reference (see docs/authoring.md).")
    rel, (start, end, indent) = found[0]
    lines = files[rel].splitlines(keepends=True)
    body = textwrap.dedent("".join(text.splitlines(keepends=True)[_first_line(new) - 1:new.end_lineno]))
    files[rel] = "".join(lines[:start - 1]) + textwrap.indent(body, " " * indent) + "".join(lines[end:])
    return rel


def _definitions(source: str, owner: str | None, name: str) -> list[tuple[int, int, int]]:
    """(first line, last line, indent) of each top-level function `name`, or method `name` of class `owner`."""
    tree = ast.parse(source)
    body: list[ast.stmt] = tree.body
    if owner is not None:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner]
        body = [member for cls in classes for member in cls.body]
    return [(_first_line(n), n.end_lineno or n.lineno, n.col_offset) for n in body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])
