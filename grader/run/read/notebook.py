"""Read a Jupyter notebook into Python cells as Jupyter opens it: magics and shell lines
neutralised.

What Jupyter repairs is repaired with a note (cell ids in a 4.4 notebook, missing or duplicate ids);
a notebook off nbformat's schema whose cells can still be read is read, with a note; only what
cannot be read is refused. Nothing of the notebook runs here: this is the trusted side reading a
file. Only code cells count (stored outputs are ignored); cells tagged `skip-grading` are left out;
IPython syntax (`%magic`, `%%cell magic`, `!shell`, `x = !cmd`, `obj?`) is replaced so that no shell
ever runs, and each replacement is reported (grader.run.read.magics). Every step is linear and
capped.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.errors import GraderError
from grader.core.text import clean_data, may_hold_surrogates
from grader.core.values import clip
from grader.run.read.magics import CHECKS_OFF as CHECKS_OFF
from grader.run.read.magics import neutralise as neutralise

SKIP_TAG = "skip-grading"
METADATA_KEY = "autograd_grader"  # notebook metadata: {"exercise": ID} or {"assignment": ID}
#: caps on what a notebook may hold (its size is capped by grader.run.read.load): far above any work
#: handed in
MAX_CELLS = 5000
MAX_LINES = 100_000  # of code, over all its code cells
MAX_NESTING = 64  # levels of JSON, in its metadata and cells (stored outputs are never read)
#: neutralised lines noted one by one; the rest in one note
MAX_NOTES = 40


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
    """Parse and validate `data` (the bytes of `path`) as an nbformat 4 notebook, within the caps
    above.

    Every step is linear in the size of `data`, and every way the file can fail is a
    `NotebookError` naming what is wrong (and which cap, where one was hit): never an exception of
    the grader's.
    """
    raw = _parsed(path, data)
    _within_caps(path, raw)
    raw, notes = repair(raw)
    off_schema = _off_schema(raw)
    notebook = _cells_of(raw)
    if notebook is None:  # not even a list of cells with their sources: nothing to grade
        why = off_schema or "its cells cannot be read"
        raise NotebookError(f"{path}: not a valid nbformat 4 notebook: {why}.")
    if off_schema:
        notes.append(
            f"The notebook does not follow nbformat 4's schema ({off_schema}); its code "
            "cells were read anyway, as Jupyter opens it."
        )
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    lines = sum(cell.source.count("\n") + 1 for cell in code)
    if lines > MAX_LINES:
        raise NotebookError(
            f"{path}: its code cells hold {lines} lines; the grader reads at most "
            f"{MAX_LINES} (the cap on lines). Hand in the work, without generated "
            "code."
        )
    cells, neutralised = _code_cells(notebook, notes)
    meta = notebook.metadata.get(METADATA_KEY, {})
    if not isinstance(meta, dict):  # free-form metadata: nbformat's schema does not check it
        notes.append(f"The notebook's metadata {METADATA_KEY!r} is not a mapping; it was ignored.")
        meta = {}
    return Notebook(
        cells=tuple(cells),
        notes=(*notes, *neutralised),
        exercise=_text(meta.get("exercise")),
        assignment=_text(meta.get("assignment")),
        nbformat=f"{notebook.nbformat}.{_shown(notebook.nbformat_minor)}",
    )


def _parsed(path: Path, data: bytes) -> dict[str, Any]:
    """The notebook's JSON, as an nbformat 4 notebook's."""
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{path}: not a notebook: not UTF-8 text (byte {exc.start}).") from None
    except json.JSONDecodeError as exc:
        raise NotebookError(
            f"{path}: not a notebook: not valid JSON (line {exc.lineno}, column "
            f"{exc.colno}: {exc.msg}). Re-save it from Jupyter, or grade the .py "
            "instead."
        ) from None
    except (RecursionError, MemoryError):
        raise NotebookError(
            f"{path}: not a notebook: its JSON is nested deeper than the grader "
            f"reads (the cap on nesting is {MAX_NESTING} levels)."
        ) from None
    if may_hold_surrogates(data):  # "\ud800" decodes to a str no format can write
        raw = clean_data(raw)
    if not isinstance(raw, dict) or "nbformat" not in raw:
        raise NotebookError(f"{path}: not a notebook: the JSON has no 'nbformat' field.")
    if raw.get("nbformat") != 4:
        raise NotebookError(
            f"{path}: nbformat {_shown(raw.get('nbformat'))} notebooks are not "
            "supported; open it in a current Jupyter and save it again "
            "(nbformat 4)."
        )
    return raw


def _code_cells(notebook: Any, notes: list[str]) -> tuple[list[Cell], list[str]]:
    """The code cells to run, IPython's syntax neutralised; and a note of each line that will not
    run (the skipped cells' go into `notes`)."""
    cells: list[Cell] = []
    neutralised: list[str] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        if isinstance(tags, list) and SKIP_TAG in tags:
            notes.append(f"Cell {number} is tagged {SKIP_TAG} and was not run.")
            continue
        source, changes = neutralise(cell.source)
        for line, text, why in changes[: MAX_NOTES - len(neutralised) + 1]:
            shown = clip(text, 80)
            neutralised.append(f"Cell {number}, line {line}: `{shown}` did not run ({why}).")
        cells.append(Cell(number, source))
    if len(neutralised) > MAX_NOTES:
        neutralised[MAX_NOTES:] = [
            f"More lines of IPython syntax did not run (only the first {MAX_NOTES} are listed)."
        ]
    return cells, neutralised


def _within_caps(path: Path, raw: dict[str, Any]) -> None:
    """Refuse a notebook with more cells, or metadata and cells nested deeper, than any work
    needs."""
    cells = raw.get("cells")
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        raise NotebookError(
            f"{path}: has {len(cells)} cells; the grader reads at most {MAX_CELLS} (the cap on "
            f"cells)."
        )
    # stored outputs are never read: only what is, the metadata and the cells without their outputs
    parts: list[Any] = [raw.get("metadata")]
    if isinstance(cells, list):
        parts += [
            {k: v for k, v in cell.items() if k != "outputs"} if isinstance(cell, dict) else cell
            for cell in cells
        ]
    stack = [(part, 2) for part in parts]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise NotebookError(
                f"{path}: its metadata or cells are nested more than {MAX_NESTING} levels deep "
                "(the cap on nesting)."
            )
        if isinstance(value, dict):
            stack += [(item, depth + 1) for item in value.values() if isinstance(item, dict | list)]
        elif isinstance(value, list):
            stack += [(item, depth + 1) for item in value if isinstance(item, dict | list)]


def _off_schema(raw: dict[str, Any]) -> str:
    """How the notebook departs from nbformat 4's schema, in a phrase; empty where it does not."""
    import nbformat as nbformat_module

    nbformat: Any = nbformat_module  # untyped library
    with warnings.catch_warnings():
        # nbformat warns about missing cell ids in 4.4 notebooks: harmless
        warnings.simplefilter("ignore")
        try:
            nbformat.validate(raw)
        except Exception as exc:  # noqa: BLE001 - nbformat fails in many ways (RecursionError too)
            return _why(exc)
    return ""


def repair(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What Jupyter repairs, repaired the same way, each with a note: cell ids in a 4.4 notebook,
    missing or duplicate ids in 4.5. The ids given are deterministic, so the same file always gives
    the same report. Linear: every id the notebook holds is known before any is given."""
    cells = raw.get("cells")
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        return raw, []
    notes: list[str] = []
    minor = raw.get("nbformat_minor")
    if isinstance(minor, int) and minor < 5 and any("id" in cell for cell in cells):
        raw = {**raw, "nbformat_minor": 5}
        notes.append(
            f"The notebook says nbformat 4.{minor} but its cells carry ids, which 4.5 added: it "
            "was read as 4.5, as Jupyter does."
        )
    if isinstance(raw.get("nbformat_minor"), int) and raw["nbformat_minor"] >= 5:
        held = {cell.get("id") for cell in cells if isinstance(cell.get("id"), str)}
        seen: set[object] = set()
        given: list[int] = []
        fixed = []
        for number, cell in enumerate(cells, start=1):
            ident = cell.get("id")
            if not isinstance(ident, str) or not _ID.fullmatch(ident) or ident in seen:
                ident = f"cell-{number}"
                while ident in seen or ident in held:
                    ident += "-repaired"
                given.append(number)
                cell = {**cell, "id": ident}
            seen.add(ident)
            fixed.append(cell)
        if given:
            raw = {**raw, "cells": fixed}
            shown = ", ".join(map(str, given[:8])) + (" and more" if len(given) > 8 else "")
            notes.append(
                f"Cell{'s' if len(given) > 1 else ''} {shown} had no id, or one another cell has: "
                "the grader gave each an id of its own, as Jupyter does."
            )
    return raw, notes


_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def _cells_of(raw: dict[str, Any]) -> Any:
    """The notebook's cells, where each is a mapping with a type and a source (a text, or a list of
    lines joined as Jupyter joins them); else None. Read the same way whether or not the notebook
    follows the schema."""
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
    return _Node(
        cells=read, metadata=metadata, nbformat=4, nbformat_minor=raw.get("nbformat_minor", 0)
    )


class _Node(dict[str, Any]):
    """Attribute access to a cell or notebook read by `_cells_of`."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _shown(value: object) -> str:
    """A value from the notebook, in a message: short, whatever it is."""
    return (
        clip(repr(value), 40)
        if isinstance(value, int | float | str | None)
        else f"<{type(value).__name__}>"
    )


def _why(exc: Exception) -> str:
    message = getattr(exc, "message", None)
    if message is not None:  # nbformat's ValidationError: where, and the first line of what
        where = "/".join(str(p) for p in getattr(exc, "absolute_path", ())) or "the top level"
        return f"at {where}: {str(message).splitlines()[0]}"
    return f"{type(exc).__name__}: {exc}"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
