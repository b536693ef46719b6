"""Read a submission file into source text, on the trusted side, without running any of it."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError

MAX_SOURCE_BYTES = 2 * 1024 * 1024
# A starter carries this line so that a plain `grade my_file.py` knows the exercise.
_DECLARED = re.compile(r"^#\s*exercise:\s*([a-z0-9][a-z0-9-]*)\s*$", re.MULTILINE)


class SubmissionError(GraderError):
    """A submission file that cannot be read as Python source."""


@dataclass(frozen=True, slots=True)
class Submission:
    path: Path
    #: the file name the student knows; tracebacks and messages use it
    name: str
    source: str
    sha256: str
    #: the exercise named by an `# exercise: <id>` line, if any
    declared_exercise: str | None


def load_submission(path: Path) -> Submission:
    """Read `path` as UTF-8 Python source, or raise `SubmissionError` saying what is wrong."""
    if not path.exists():
        raise SubmissionError(f"{path}: no such file. Check the path (grade takes a .py file).")
    if path.is_dir():
        raise SubmissionError(f"{path}: is a folder; give the .py file inside it.")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc.strerror}).") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"{path}: is {len(data) // 1024} KiB; a submission may be at most "
                              f"{MAX_SOURCE_BYTES // 1024} KiB of source.")
    if b"\0" in data:
        raise SubmissionError(f"{path}: is a binary file, not Python source.")
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SubmissionError(f"{path}, line {line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8.") \
            from None
    declared = _DECLARED.search(source)
    return Submission(
        path=path,
        name=path.name,
        source=source,
        sha256=hashlib.sha256(data).hexdigest(),
        declared_exercise=declared.group(1) if declared else None,
    )
