"""Read a submission (a .py file or a notebook) into cells of source, on the trusted side, running
none of it."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from grader.core.errors import GraderError
from grader.run.read.notebook import MAX_LINES, read_notebook

MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024  # stored outputs (plots) make notebooks big; they are not run
# A starter carries this line so that a plain `grade my_file.py` knows the exercise.
_DECLARED = re.compile(r"^#\s*(exercise|assignment):\s*([a-z0-9][a-z0-9-]*)\s*$", re.MULTILINE)


class SubmissionError(GraderError):
    """A submission file that cannot be read as Python source or as a notebook."""


@dataclass(frozen=True, slots=True)
class SourceCell:
    """A piece of the submission run as one unit: the whole .py file, or one code cell of a
    notebook."""

    #: how messages name it: the file's name, or "cell 7"
    label: str
    source: str


@dataclass(frozen=True, slots=True)
class Submission:
    path: Path
    #: the file name the student knows
    name: str
    kind: Literal["python", "notebook", "package"]
    cells: tuple[SourceCell, ...]
    sha256: str
    #: the exercise or assignment the file names (`# exercise: ID`, or the notebook's metadata)
    declared_exercise: str | None
    declared_assignment: str | None
    #: what loading left out or changed (magics, skipped cells), for the report
    notes: tuple[str, ...] = ()
    #: the other .py files handed in beside it, importable from it: label = the file's name, source
    #: = its text
    siblings: tuple[SourceCell, ...] = ()
    #: a package's files (kind "package"): label = the path in the repository, source = its text
    package: tuple[SourceCell, ...] = ()

    @property
    def source(self) -> str:
        return "\n".join(cell.source for cell in self.cells)

    @property
    def declares(self) -> str:
        """Where the submission names its exercise, for a message to its author."""
        if self.kind == "notebook":
            return f"{self.name}'s notebook metadata"
        word = "exercise" if self.declared_exercise is not None else "assignment"
        return f"{self.name}'s '# {word}:' line"


def _near(path: Path) -> str:
    """' Did you mean node-mul.py?' where a file beside the missing one has nearly its name."""
    try:
        names = [p.name for p in path.parent.iterdir() if p.suffix in (".py", ".ipynb")]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=2, cutoff=0.7)
    return f" Did you mean {' or '.join(close)}?" if close else ""


def read_capped(path: Path, limit: int) -> bytes:
    """The bytes of the regular file `path`, if it holds at most `limit`; else `SubmissionError`
    saying why.

    Opened without blocking and checked once open, so a FIFO or a device under a submission's name
    never stalls the grader, and a file that grows while it is read is still cut at the cap.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc.strerror}).") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SubmissionError(f"{path}: is not a regular file.")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc.strerror}).") from None
    finally:
        os.close(fd)
    if size > limit:
        raise SubmissionError(
            f"{path}: is over {limit // 1024} KiB; a submission may be at most {limit // 1024} KiB "
            f"(the cap on size)."
        )
    return b"".join(chunks)


def load_submission(path: Path) -> Submission:
    """Read `path` as UTF-8 Python or as a notebook, or raise `SubmissionError` saying what is
    wrong."""
    if not path.exists():
        raise SubmissionError(
            f"{path}: no such file.{_near(path)} Check the path (grade takes a .py file or a "
            f"notebook)."
        )
    if path.is_dir():
        raise SubmissionError(f"{path}: is a folder; give the .py or .ipynb file inside it.")
    notebook = path.suffix == ".ipynb"
    data = read_capped(path, MAX_NOTEBOOK_BYTES if notebook else MAX_SOURCE_BYTES)
    digest = hashlib.sha256(data).hexdigest()
    if notebook:
        nb = read_notebook(path, data)
        cells = tuple(SourceCell(f"cell {cell.number}", cell.source) for cell in nb.cells)
        return Submission(
            path=path,
            name=path.name,
            kind="notebook",
            cells=cells,
            sha256=digest,
            declared_exercise=nb.exercise,
            declared_assignment=nb.assignment,
            notes=nb.notes,
        )
    if b"\0" in data:
        raise SubmissionError(f"{path}: is a binary file, not Python source.")
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SubmissionError(
            f"{path}, line {line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8."
        ) from None
    lines = source.count("\n") + 1
    if lines > MAX_LINES:
        raise SubmissionError(
            f"{path}: holds {lines} lines; the grader reads at most {MAX_LINES} (the cap on lines)."
        )
    declared = {kind: ident for kind, ident in _DECLARED.findall(source)}
    return Submission(
        path=path,
        name=path.name,
        kind="python",
        cells=(SourceCell(path.name, source),),
        sha256=digest,
        declared_exercise=declared.get("exercise"),
        declared_assignment=declared.get("assignment"),
    )
