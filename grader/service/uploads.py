"""What an upload must be before it is stored: a size-capped UTF-8 Python file,
or a notebook that is JSON; each other shape gets a message that says what it
is and what to do. Every check is linear in the upload and bounded by the cap.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.core.library import Library

SUFFIXES = (".py", ".ipynb")
_NAME = re.compile(r"[^A-Za-z0-9._ -]")
#: the first bytes of files students upload by mistake, and what they are
_MAGIC = (
    (b"PK\x03\x04", "a zip archive"),
    (b"%PDF", "a PDF"),
    (b"\x7fELF", "a program"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\xd0\xcf\x11\xe0", "an Office document"),
)


@dataclass(frozen=True, slots=True)
class Refused:
    """An upload that is not stored, and why, for the student."""

    status: int
    message: str
    #: seconds after which the same upload may succeed (a
    #: 429's Retry-After); None: not a matter of waiting
    retry_after: int | None = None


def shown_name(name: str) -> str:
    """What the student called the file, for their own
    pages: no path, no control characters, clipped."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return _NAME.sub("_", base)[:80] or "submission"


def suffix_of(name: str) -> str:
    lowered = shown_name(name).lower()
    return next((s for s in SUFFIXES if lowered.endswith(s)), "")


def check_upload(
    content: bytes, name: str, cap: int, library: Library | None = None
) -> Refused | str:
    """The suffix the grader stores it under (.py or .ipynb; .zip
    for a library course's repository), or why it is refused."""
    shown = shown_name(name)
    if library is not None:
        return _check_package(content, shown, cap, library)
    if len(content) > cap:
        return Refused(
            413,
            f"{shown} is {len(content) // 1024} KiB; this course takes files up to {cap // 1024} KiB. "
            "Submit only your code (a .py file or the notebook), not data or outputs.",
        )
    if not content.strip():
        return Refused(
            422,
            f"{shown} is empty: nothing to grade. Check that you saved the file before submitting.",
        )
    suffix = suffix_of(name)
    for magic, what in _MAGIC:
        if content.startswith(magic):
            return Refused(
                415,
                f"{shown} is {what}, not Python code: submit your .py file or your .ipynb notebook.",
            )
    if b"\x00" in content:
        return Refused(
            415,
            f"{shown} is a binary file (it holds NUL bytes), not Python code: submit your .py file "
            "or your .ipynb notebook.",
        )
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = content[: exc.start].count(b"\n") + 1
        return Refused(
            415,
            f"{shown} is not UTF-8 text (byte {exc.start + 1}, line {line}, cannot be read as "
            "UTF-8). Save it as UTF-8 in your editor (most call it 'UTF-8' in the encoding menu) and "
            "submit again.",
        )
    notebook = _notebook_shaped(text)
    if suffix == ".ipynb" and not notebook:
        return Refused(
            422,
            f"{shown} is named like a notebook but is not one (a notebook is JSON with "
            "'cells'). Submit the .ipynb file Jupyter saved, or the .py file under its own name.",
        )
    if suffix != ".ipynb" and notebook:
        return Refused(
            422,
            f"{shown} holds a Jupyter notebook (JSON with 'cells'), not Python code. Submit it "
            "under a name ending in .ipynb, or export it as a .py file.",
        )
    return suffix or ".py"


def _check_package(content: bytes, shown: str, cap: int, library: Library) -> Refused | str:
    """A library course's upload: a zip of the course's files of a repository (what
    grade submit FOLDER sends), read under the same caps as when it is graded."""
    if len(content) > cap:
        return Refused(
            413,
            f"{shown} is {len(content) // 1024} KiB; this course takes up to {cap // 1024} KiB. "
            "Submit your repository's folder with grade submit: it sends only the course's files.",
        )
    if not content.startswith(b"PK\x03\x04"):
        return Refused(
            415,
            f"{shown} is not a zip archive: this course grades a whole repository. Submit its "
            "folder with grade submit FOLDER.",
        )
    from grader.run.read.load import SubmissionError
    from grader.run.read.package import read_package

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "submission.zip"
        path.write_bytes(content)
        try:
            read_package(path, library)
        except SubmissionError as exc:
            return Refused(422, f"{shown}: {exc}".replace(str(path), "the archive"))
    return ".zip"


def _notebook_shaped(text: str) -> bool:
    start = text.lstrip("\ufeff \t\r\n")[:1]
    if start != "{":
        return False
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("cells"), list)
