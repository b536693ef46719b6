"""An archive a student hands in (a zip or a tarball), read on the trusted side: nothing extracted,
every size read and not believed.

An entry's name is only a name: an absolute path, `..`, a drive or a backslash is refused, never
joined to a folder. What is read is bounded in entries, in bytes unpacked and in bytes kept,
whatever the headers say. Which entries are the course's is the package reader's choice
(grader.run.read.package), passed in as `choose`.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import re
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from grader.run.read.load import MAX_SOURCE_BYTES, SubmissionError

#: entries of a folder or an archive looked at, at most
MAX_ENTRIES = 20_000
#: an archive's own size, and the bytes it may unpack to as it is read (a tarball is read through
#: once)
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: what is never entered: tools' debris, and the student's virtual environments
SKIPPED = frozenset(
    {".git", "__pycache__", "__MACOSX", "node_modules", ".venv", "venv", ".ipynb_checkpoints"}
)


@dataclass(frozen=True, slots=True)
class Entry:
    """A file an archive or a folder holds: its path under the top, its size, and what it is (a link
    or a device is refused if it is one of the course's files)."""

    path: PurePosixPath
    size: int
    kind: str  # "file", or what it is instead ("a link", "a device")


#: the course's files among the entries: path in the repository -> path under the top
Choose = Callable[[dict[PurePosixPath, Entry]], dict[str, PurePosixPath]]


def entry_path(name: str, where: Path) -> PurePosixPath | None:
    """An archive entry's name as a path under the top, or None for a folder entry; refused if it
    could lead anywhere else (absolute, `..`, a drive, a backslash)."""
    outside = "\\" in name or "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name)
    path = PurePosixPath(name)
    if outside or any(part == ".." for part in path.parts):
        raise SubmissionError(
            f"{where}: holds an entry named {name[:120]!r}, which leads outside the archive; "
            f"make the archive again from the repository's folder."
        )
    if name.endswith("/") or not path.parts:
        return None
    return path


def skipped(path: PurePosixPath) -> bool:
    return any(part in SKIPPED for part in path.parts[:-1])


def _archive_size(path: Path) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc.strerror}).") from None
    if not stat.S_ISREG(info.st_mode):
        raise SubmissionError(f"{path}: is not a regular file.")
    if info.st_size > MAX_ARCHIVE_BYTES:
        raise SubmissionError(
            f"{path}: is over {MAX_ARCHIVE_BYTES // (1024 * 1024)} MiB; an archive may be at "
            f"most that (the cap on size). Leave the data sets out."
        )


def _too_many(path: Path) -> SubmissionError:
    return SubmissionError(
        f"{path}: holds more than {MAX_ENTRIES} entries (the cap on entries); hand in the "
        f"repository without its data."
    )


# ------------------------------------------------------------------------------------------------
# A zip: its directory listed, the chosen members read to the cap


def zip_files(path: Path, choose: Choose) -> dict[str, bytes]:
    """The course's files of a zip, by their path in the repository."""
    _archive_size(path)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_ENTRIES:
                raise _too_many(path)
            entries: dict[PurePosixPath, Entry] = {}
            by_path: dict[PurePosixPath, zipfile.ZipInfo] = {}
            for info in infos:
                rel = entry_path(info.filename, path)
                if rel is None or skipped(rel):
                    continue
                kind = _zip_kind(info.external_attr >> 16)
                if kind == "folder":
                    continue
                if rel in entries:
                    raise SubmissionError(f"{path}: holds {rel} twice; make the archive again.")
                entries[rel] = Entry(rel, info.file_size, kind)
                by_path[rel] = info
            chosen = choose(entries)
            return {rel: _zip_member(archive, by_path[top], rel) for rel, top in chosen.items()}
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        EOFError,
        OSError,
    ) as exc:
        raise SubmissionError(f"{path}: is not a zip archive that can be read ({exc}).") from None


def _zip_kind(mode: int) -> str:
    if not stat.S_IFMT(mode) or stat.S_ISREG(mode):
        # no file type in the mode (zip tools that write permissions alone) is a plain file
        return "file"
    if stat.S_ISLNK(mode):
        return "a link"
    if stat.S_ISDIR(mode):
        return "folder"
    return "not a regular file (a device, a pipe or a socket)"


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, rel: str) -> bytes:
    """The member's bytes, read to at most the cap whatever its header says (a bomb stops here)."""
    with archive.open(info) as member:
        data = member.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(
            f"{rel}: unpacks to over {MAX_SOURCE_BYTES // 1024} KiB; a file may be at most "
            f"{MAX_SOURCE_BYTES // 1024} KiB (the cap on size)."
        )
    return data


# ------------------------------------------------------------------------------------------------
# A tarball: read through once as a stream, unpacked here under a cap (not by tarfile)


class _Reader(Protocol):
    """What a tarball is read from: its bytes, as they unpack."""

    def read(self, size: int = -1, /) -> bytes: ...


class _Capped(io.RawIOBase):
    """A file read through once, that refuses to give more than `limit` bytes (what a tarball
    unpacks to)."""

    def __init__(self, raw: _Reader, limit: int, where: Path) -> None:
        self._raw, self._left, self._where = raw, limit, where

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(min(len(buffer), self._left + 1))
        self._left -= len(data)
        if self._left < 0:
            raise SubmissionError(
                f"{self._where}: unpacks to over {MAX_UNPACKED_BYTES // (1024 * 1024)} MiB "
                f"(the cap on size); hand in the repository without its data."
            )
        buffer[: len(data)] = data
        return len(data)


def tar_files(
    path: Path, choose: Choose, wanted: Callable[[PurePosixPath], bool], keep_bytes: int
) -> dict[str, bytes]:
    """The course's files of a tarball, by their path in the repository.

    The root is known only at the end, so every entry that could be one of the course's (`wanted`)
    is kept as it passes, up to `keep_bytes` together."""
    _archive_size(path)
    entries: dict[PurePosixPath, Entry] = {}
    kept: dict[PurePosixPath, bytes] = {}
    kept_bytes = 0
    try:
        with open(path, "rb") as raw, _unpacked(raw) as plain:
            stream = io.BufferedReader(_Capped(plain, MAX_UNPACKED_BYTES, path))
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for count, member in enumerate(archive, 1):
                    if count > MAX_ENTRIES:
                        raise _too_many(path)
                    rel = entry_path(member.name + ("/" if member.isdir() else ""), path)
                    if rel is None or skipped(rel):
                        continue
                    entry = Entry(rel, member.size, _tar_kind(member))
                    entries[rel] = entry
                    if entry.kind != "file" or not wanted(rel) or member.size > MAX_SOURCE_BYTES:
                        continue
                    kept_bytes += member.size
                    if kept_bytes > keep_bytes:
                        raise SubmissionError(
                            f"{path}: holds over {keep_bytes // 1024} KiB of the course's "
                            f"files (the cap on size)."
                        )
                    member_file = archive.extractfile(member)
                    kept[rel] = (
                        member_file.read(MAX_SOURCE_BYTES + 1) if member_file is not None else b""
                    )
    except (tarfile.TarError, EOFError, OSError, ValueError, lzma.LZMAError) as exc:
        raise SubmissionError(f"{path}: is not a tarball that can be read ({exc}).") from None
    return {rel: kept[top] for rel, top in choose(entries).items()}


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.isreg():
        return "file"
    if member.issym() or member.islnk():
        return "a link"
    return "not a regular file (a device, a pipe or a socket)"


@contextlib.contextmanager
def _unpacked(raw: io.BufferedReader) -> Iterator[_Reader]:
    """The tarball's bytes as they unpack, by its first bytes: gzip, bzip2, xz, or none."""
    head = raw.peek(6)[:6]
    if head.startswith(b"\x1f\x8b"):
        with gzip.GzipFile(fileobj=raw, mode="rb") as plain:
            yield plain
    elif head.startswith(b"BZh"):
        with bz2.BZ2File(raw, "rb") as plain_bz2:
            yield plain_bz2
    elif head.startswith(b"\xfd7zXZ\x00"):
        with lzma.LZMAFile(raw, "rb") as plain_xz:
            yield plain_xz
    else:
        yield raw
