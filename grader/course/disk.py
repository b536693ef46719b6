"""Files written whole or not at all: each to a temporary beside it, then renamed into place; and
the sweep of what a killed run left half-written."""

from __future__ import annotations

import os
from pathlib import Path

from grader.core.text import clean

#: the suffix of a file being written; renamed into place when complete
TEMPORARY = ".tmp"


def atomic(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Write `path` whole or not at all; `durable`: on disk before it replaces the old one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}{TEMPORARY}")
    raw = data if isinstance(data, bytes) else _encoded(data)
    with temporary.open("wb") as handle:
        handle.write(raw)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(temporary, path)


def _encoded(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # a file name of any bytes, or a submission's text, in a class file: never a crash
        return clean(text).encode("utf-8")


def sweep(folder: Path) -> None:
    """Remove the half-written files of a run that was killed between writing and renaming.

    Only files of other processes go: this folder's files are being rewritten now, and a live
    batch never writes the same student's folder from two processes.
    """
    ours = f".{os.getpid()}{TEMPORARY}"
    for stale in folder.glob(f".*{TEMPORARY}"):
        if not stale.name.endswith(ours):
            stale.unlink(missing_ok=True)
