"""Read a Jupyter notebook into Python cells as Jupyter opens it: magics and shell lines neutralised.

What Jupyter repairs is repaired with a note (cell ids in a 4.4 notebook, missing or duplicate ids);
a notebook off nbformat's schema whose cells can still be read is read, with a note; only what cannot
be read is refused. Nothing of the notebook runs here: this is the trusted side reading a file. Only
code cells count (stored outputs are ignored); cells tagged `skip-grading` are left out; IPython syntax (`%magic`,
`%%cell magic`, `!shell`, `x = !cmd`, `obj?`) is replaced so that no shell ever runs, and each
replacement is reported.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.errors import GraderError

SKIP_TAG = "skip-grading"
METADATA_KEY = "autograd_grader"  # notebook metadata: {"exercise": ID} or {"assignment": ID}
#: cell magics whose body is Python: it runs once, without the magic
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
#: line magics that wrap one statement: the statement runs, once
STATEMENT_LINE_MAGICS = {"time", "prun"}

_LINE_MAGIC = re.compile(r"^(?P<indent>\s*)(?P<text>(?P<sigil>%|!)(?P<name>[\w.-]*).*)$")
_ASSIGNED_MAGIC = re.compile(r"^(?P<target>\s*[\w.,\s\[\]()*]+?\s*=\s*)(?P<text>[%!].*)$")
_HELP = re.compile(r"^(?P<indent>\s*)(?P<text>\??[\w.]+\?\??)\s*$")


class NotebookError(GraderError):
    """A notebook file that cannot be read as a notebook."""


@dataclass(frozen=True, slots=True)
class Cell:
    #: position in the notebook, 1-based, counting every cell (as a student counts them on screen)
    number: int
    source: str


@dataclass(frozen=True, slots=True)
class Notebook:
    cells: tuple[Cell, ...]
    #: what was left out or neutralised, for the report
    notes: tuple[str, ...]
    #: named in the notebook's metadata, if any
    exercise: str | None
    assignment: str | None
    nbformat: str


def read_notebook(path: Path, data: bytes) -> Notebook:
    """Parse and validate `data` (the bytes of `path`) as an nbformat 4 notebook."""
    import nbformat as nbformat_module

    nbformat: Any = nbformat_module  # untyped library
    try:
        text = data.decode("utf-8-sig")
        raw = json.loads(text)
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{path}: not a notebook: not UTF-8 text (byte {exc.start}).") from None
    except json.JSONDecodeError as exc:
        raise NotebookError(f"{path}: not a notebook: not valid JSON (line {exc.lineno}, column {exc.colno}: "
                            f"{exc.msg}). Re-save it from Jupyter, or grade the .py instead.") from None
    if not isinstance(raw, dict) or "nbformat" not in raw:
        raise NotebookError(f"{path}: not a notebook: the JSON has no 'nbformat' field.")
    if raw.get("nbformat") != 4:
        raise NotebookError(f"{path}: nbformat {raw.get('nbformat')!r} notebooks are not supported; open it in "
                            f"a current Jupyter and save it again (nbformat 4).")
    raw, notes = repair(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbformat warns about missing cell ids in 4.4 notebooks: harmless
        try:
            nbformat.validate(raw)
            # reads() also joins each cell's list of lines into one text, as Jupyter does
            notebook: Any = nbformat.reads(json.dumps(raw), as_version=4)
        except Exception as exc:  # noqa: BLE001 - nbformat fails in many ways on odd structures
            notebook = _lenient(raw)
            if notebook is None:  # not even a list of cells with their sources: nothing to grade
                raise NotebookError(f"{path}: not a valid nbformat 4 notebook: {_why(exc)}.") from None
            notes.append(f"The notebook does not follow nbformat 4's schema ({_why(exc)}); its code cells were "
                         "read anyway, as Jupyter opens it.")
    cells: list[Cell] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        if SKIP_TAG in cell.get("metadata", {}).get("tags", []):
            notes.append(f"Cell {number} is tagged {SKIP_TAG} and was not run.")
            continue
        source, changes = neutralise(cell.source)
        notes += [f"Cell {number}, line {line}: `{text}` did not run ({why})." for line, text, why in changes]
        cells.append(Cell(number, source))
    meta = notebook.metadata.get(METADATA_KEY, {})
    if not isinstance(meta, dict):  # free-form metadata: nbformat's schema does not check it
        notes.append(f"The notebook's metadata {METADATA_KEY!r} is not a mapping; it was ignored.")
        meta = {}
    return Notebook(
        cells=tuple(cells),
        notes=tuple(notes),
        exercise=_text(meta.get("exercise")),
        assignment=_text(meta.get("assignment")),
        nbformat=f"{notebook.nbformat}.{notebook.nbformat_minor}",
    )


def repair(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What Jupyter repairs, repaired the same way, each with a note: cell ids in a 4.4 notebook, missing or
    duplicate ids in 4.5. The ids given are deterministic, so the same file always gives the same report."""
    cells = raw.get("cells")
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        return raw, []
    notes: list[str] = []
    minor = raw.get("nbformat_minor")
    if isinstance(minor, int) and minor < 5 and any("id" in cell for cell in cells):
        raw = {**raw, "nbformat_minor": 5}
        notes.append(f"The notebook says nbformat 4.{minor} but its cells carry ids, which 4.5 added: it was read "
                     "as 4.5, as Jupyter does.")
    if isinstance(raw.get("nbformat_minor"), int) and raw["nbformat_minor"] >= 5:
        seen: set[object] = set()
        given: list[int] = []
        fixed = []
        for number, cell in enumerate(cells, start=1):
            ident = cell.get("id")
            if not isinstance(ident, str) or not _ID.fullmatch(ident) or ident in seen:
                ident = f"cell-{number}"
                while ident in seen or any(c.get("id") == ident for c in cells):
                    ident += "-repaired"
                given.append(number)
                cell = {**cell, "id": ident}
            seen.add(ident)
            fixed.append(cell)
        if given:
            raw = {**raw, "cells": fixed}
            shown = ", ".join(map(str, given[:8])) + (" and more" if len(given) > 8 else "")
            notes.append(f"Cell{'s' if len(given) > 1 else ''} {shown} had no id, or one another cell has: "
                         "the grader gave each an id of its own, as Jupyter does.")
    return raw, notes


_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def _lenient(raw: dict[str, Any]) -> Any:
    """The notebook's cells read without the schema, where each is a mapping with a type and a source; else None."""
    cells = raw.get("cells")
    if not isinstance(cells, list):
        return None
    read = []
    for cell in cells:
        source = cell.get("source") if isinstance(cell, dict) else None
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str) or not isinstance(cell.get("cell_type"), str):
            return None
        metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        read.append(_Node(cell_type=cell["cell_type"], source=source, metadata=metadata))
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    return _Node(cells=read, metadata=metadata, nbformat=4, nbformat_minor=raw.get("nbformat_minor", 0))


class _Node(dict[str, Any]):
    """The attribute access nbformat's NotebookNode gives, for cells read without it."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _why(exc: Exception) -> str:
    message = getattr(exc, "message", None)
    if message is not None:  # nbformat's ValidationError: where, and the first line of what
        where = "/".join(str(p) for p in getattr(exc, "absolute_path", ())) or "the top level"
        return f"at {where}: {str(message).splitlines()[0]}"
    return f"{type(exc).__name__}: {exc}"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def neutralise(source: str) -> tuple[str, list[tuple[int, str, str]]]:
    """Replace IPython-only syntax with Python that does nothing; return (python, [(line, text, why)]).

    Only lines the Python parser rejects are touched, one at a time, so `%` and `!` inside strings
    and expressions stay as they are. A cell with a real syntax error is left for the run to report.
    """
    lines = source.split("\n")
    changes: list[tuple[int, str, str]] = []
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%") and not _parses(source):
        name = lines[first].strip()[2:].split(maxsplit=1)[0] if lines[first].strip() != "%%" else ""
        changes.append((first + 1, lines[first].strip(), "cell magics do not run when grading"))
        if name not in PYTHON_CELL_MAGICS:  # %%bash, %%writefile, %%html...: not Python at all
            return "\n".join("" for _ in lines), changes
        lines[first] = ""
    for _ in range(len(lines)):
        bad = _first_error_line("\n".join(lines))
        if bad is None or not 0 < bad <= len(lines):
            break
        replaced = _neutral_line(lines[bad - 1])
        if replaced is None:
            break  # a real syntax error: the child reports it, mapped to this cell
        new, why = replaced
        changes.append((bad, lines[bad - 1].strip(), why))
        lines[bad - 1] = new
    return _without_checks(lines, changes)


#: why `from grader import check` does not run when a notebook is graded
CHECKS_OFF = "checks in the notebook do not run when it is graded"


def _without_checks(lines: list[str], changes: list[tuple[int, str, str]]) -> tuple[str, list[tuple[int, str, str]]]:
    """`from grader import check` (grader.course.notebook_check) bound to a function that does nothing, so that the
    student's own check() calls neither grade again from inside the sandbox nor fail there."""
    source = "\n".join(lines)
    if "grader" not in source or not _parses(source):
        return source, changes
    found = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)
             and node.module == "grader" and node.level == 0 and node.lineno == node.end_lineno]
    for node in sorted(found, key=lambda n: -n.col_offset):  # right to left: earlier columns stay valid
        line = lines[node.lineno - 1]
        bound = [alias.asname or alias.name for alias in node.names]
        quiet = "; ".join(f"{name} = lambda *args, **kwargs: None" for name in bound)
        lines[node.lineno - 1] = line[:node.col_offset] + quiet + line[node.end_col_offset or len(line):]
        changes.append((node.lineno, line[node.col_offset:node.end_col_offset].strip(), CHECKS_OFF))
    return "\n".join(lines), sorted(changes)


def _first_error_line(source: str) -> int | None:
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return exc.lineno
    except ValueError:  # a null byte: not something a magic explains
        return None
    return None


def _neutral_line(line: str) -> tuple[str, str] | None:
    assigned = _ASSIGNED_MAGIC.match(line)
    if assigned and not _parses(line.strip()):
        return f"{assigned['target']}None", "shell commands and magics do not run when grading"
    magic = _LINE_MAGIC.match(line)
    if magic:
        indent, text = magic["indent"], magic["text"]
        if magic["sigil"] == "!":
            return f"{indent}pass", "shell commands do not run when grading"
        rest = text[len(magic["name"]) + 1:].strip()
        if magic["name"] in STATEMENT_LINE_MAGICS and rest:
            return f"{indent}{rest}", f"%{magic['name']} removed; the statement still runs"
        why = "pip installs nothing when grading" if magic["name"] == "pip" else "magics do not run when grading"
        return f"{indent}pass", why
    help_ = _HELP.match(line)
    if help_:
        return f"{help_['indent']}pass", "help lookups do not run when grading"
    return None


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True
