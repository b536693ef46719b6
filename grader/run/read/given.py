"""A course's given files: an earlier module's files, the course's own and handed out with the
starter, whose functions stand in for the student's of the same name (minitorch's module 0
`operators.py` under module 1).

The given file is appended to the student's own, so that each name it defines is bound to the
course's function once the module has run, while the student's other functions, and the lines their
errors are reported at, stay theirs. A file of the student's that Python cannot read is replaced by
the given one whole. So a bug graded in an earlier module costs nothing in this one, and the report
says so.
"""

from __future__ import annotations

import ast
from pathlib import Path

from grader.core.library import Library

#: what separates the student's lines from the course's in the file the child runs
SEAM = (
    "\n\n# ---- the course's own functions (given: they stand in for yours of the same name) ----\n"
)


def with_given(files: dict[str, str], library: Library) -> tuple[dict[str, str], tuple[str, ...]]:
    """`files` (path in the repository -> text) with the course's given files in place, and a note
    for each one that differs from the student's own."""
    if not library.given:
        return files, ()
    assert (
        library.starter is not None
    )  # the course's settings refuse a given file without a starter
    out = dict(files)
    notes = []
    for rel in library.given:
        given = _given_text(library.starter / rel)
        own = files.get(rel)
        if own is not None and own.strip() == given.strip():
            continue
        if own is None or not _parses(own):
            out[rel] = given
            how = "is missing" if own is None else "cannot be read by Python"
            notes.append(f"{rel} {how}; the course's own {rel} was used in its place.")
            continue
        out[rel] = own.rstrip("\n") + SEAM + _without_future(given)
        listed = _listed(_functions(given))
        notes.append(
            f"{rel}: the course's own functions ({listed}) stand in for yours of the same names, "
            "so that a mistake there, graded before, costs nothing here."
        )
    return out, tuple(notes)


def _given_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _without_future(text: str) -> str:
    """The given file without its `from __future__` imports, which only a file's first lines may
    hold."""
    lines = text.splitlines(keepends=True)
    for node in reversed(ast.parse(text).body):
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            del lines[node.lineno - 1 : node.end_lineno]
    return "".join(lines)


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:4])
    return shown if len(names) <= 4 else f"{shown} and {len(names) - 4} more"


def _functions(text: str) -> list[str]:
    return [node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)]
