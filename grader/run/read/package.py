"""Read a student's package (a folder, a git checkout, a zip or a tarball) on the trusted side, running none of it.

The course names the files a repository hands in (globs under its root); everything else, the student's own
tests, conftest.py and setup.py included, is never read. Every archive is hostile: an entry's name is only a
name (an absolute path, `..` or a drive is refused, never joined to a folder), nothing is extracted, a link or
a device among the course's files is refused, and what is read is bounded in entries, bytes unpacked and bytes
kept, whatever the headers say. A refusal is a `SubmissionError` that says which cap or rule, and what to do.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import lzma
import os
import re
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import IO, Any

from grader.core.library import Library
from grader.run.read.load import MAX_SOURCE_BYTES, SourceCell, Submission, SubmissionError, read_capped

#: the course's files one package may hold
MAX_PACKAGE_FILES = 200
#: their bytes together
MAX_PACKAGE_BYTES = 8 * 1024 * 1024
#: entries of a folder or an archive looked at, at most
MAX_ENTRIES = 20_000
#: an archive's own size, and the bytes it may unpack to as it is read (a tarball is read through once)
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: folders down from the top where the repository's root may lie (an archive often adds one or two)
MAX_ROOT_DEPTH = 3
#: what a folder walk never enters: tools' debris, and the student's virtual environments
_SKIPPED = frozenset({".git", "__pycache__", "__MACOSX", "node_modules", ".venv", "venv", ".ipynb_checkpoints"})
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


@dataclass(frozen=True, slots=True)
class Entry:
    """A file an archive or a folder holds: its path under the top, and how to read it (None: a link or a
    device, which is refused if it is one of the course's files)."""

    path: PurePosixPath
    size: int
    kind: str  # "file", or what it is instead ("a link", "a device")


def is_package(path: Path) -> bool:
    """Whether `path` is read as a package: a folder, or an archive by its name."""
    return path.is_dir() or path.name.lower().endswith(ARCHIVES)


def read_package(path: Path, library: Library) -> Submission:
    """The course's files of the repository at `path`, as a submission of kind "package"."""
    name = path.name.lower()
    if path.is_dir():
        entries = dict(_folder_entries(path))
        found = _choose(entries, library, path)
        contents = {rel: read_capped(path / top, MAX_SOURCE_BYTES) for rel, top in found.items()}
    elif name.endswith(".zip"):
        contents = _zip_files(path, library)
    elif name.endswith(ARCHIVES):
        contents = _tar_files(path, library)
    elif not path.exists():
        raise SubmissionError(f"{path}: no such file or folder. Give the repository's folder, or its .zip or "
                              f"tarball.")
    else:
        raise SubmissionError(f"{path}: is neither a folder nor an archive (.zip, .tar, .tar.gz, .tgz); hand in "
                              f"the repository whole.")
    return _submission(path, contents)


def _submission(path: Path, contents: dict[str, bytes]) -> Submission:
    files = []
    digest = hashlib.sha256()
    for rel in sorted(contents):
        data = contents[rel]
        if b"\0" in data:
            raise SubmissionError(f"{rel}: is a binary file, not Python source.")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise SubmissionError(f"{rel}, line {line}: not UTF-8 text (byte {exc.start}); save the file as "
                                  f"UTF-8.") from None
        files.append(SourceCell(rel, text))
        digest.update(f"{rel}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return Submission(path=path, name=path.name, kind="package", cells=(), sha256=digest.hexdigest(),
                      declared_exercise=None, declared_assignment=None, package=tuple(files))


# ------------------------------------------------------------------------------------------------
# Which files are the course's: the globs, under the root that matches most of them


@cache
def _pattern(glob: str) -> re.Pattern[str]:
    """A course's glob as a regular expression: `**/` spans folders, `*` and `?` stay within one."""
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))


def matches(library: Library, rel: str) -> bool:
    return any(_pattern(glob).fullmatch(rel) for glob in library.files)


def _choose(entries: dict[PurePosixPath, Entry], library: Library, where: Path) -> dict[str, PurePosixPath]:
    """The course's files among `entries`, by their path in the repository -> their path under the top.

    The repository's root is the folder (the top, or one up to MAX_ROOT_DEPTH down) under which most of
    the course's files lie: a zip of a clone holds `repo-main/...`."""
    under: dict[PurePosixPath, dict[str, PurePosixPath]] = {}
    for path in entries:
        for skip in range(min(MAX_ROOT_DEPTH, len(path.parts) - 1) + 1):
            rel = PurePosixPath(*path.parts[skip:]).as_posix()
            if matches(library, rel):
                under.setdefault(PurePosixPath(*path.parts[:skip]), {})[rel] = path
    roots = sorted(under, key=lambda root: (-len(under[root]), len(root.parts), str(root)))
    best = under[roots[0]] if roots else {}
    if not best:
        raise SubmissionError(f"{where}: holds none of the files this course takes ({', '.join(library.files)}). "
                              f"Hand in the repository whole, as it was cloned.")
    if len(best) > MAX_PACKAGE_FILES:
        raise SubmissionError(f"{where}: holds {len(best)} of the course's files; a package may hold at most "
                              f"{MAX_PACKAGE_FILES} (the cap on files). Remove the copies you do not need.")
    for rel, path in best.items():
        entry = entries[path]
        if entry.kind != "file":
            raise SubmissionError(f"{rel}: is {entry.kind}, not a file; the grader reads only files handed in "
                                  f"whole. Replace it with the file itself.")
        if entry.size > MAX_SOURCE_BYTES:
            raise SubmissionError(f"{rel}: is over {MAX_SOURCE_BYTES // 1024} KiB; a file may be at most "
                                  f"{MAX_SOURCE_BYTES // 1024} KiB (the cap on size).")
    total = sum(entries[p].size for p in best.values())
    if total > MAX_PACKAGE_BYTES:
        raise SubmissionError(f"{where}: the course's files hold {total // 1024} KiB; a package may hold at most "
                              f"{MAX_PACKAGE_BYTES // 1024} KiB (the cap on size).")
    return best


def _entry_path(name: str, where: Path) -> PurePosixPath | None:
    """An archive entry's name as a path under the top, or None for a folder entry; refused if it could lead
    anywhere else (absolute, `..`, a drive, a backslash)."""
    if "\\" in name or "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise SubmissionError(f"{where}: holds an entry named {name[:120]!r}, which leads outside the archive; "
                              f"make the archive again from the repository's folder.")
    path = PurePosixPath(name)
    if any(part == ".." for part in path.parts):
        raise SubmissionError(f"{where}: holds an entry named {name[:120]!r}, which leads outside the archive; "
                              f"make the archive again from the repository's folder.")
    if name.endswith("/") or not path.parts:
        return None
    return path


def _skipped(path: PurePosixPath) -> bool:
    return any(part in _SKIPPED for part in path.parts[:-1])


# ------------------------------------------------------------------------------------------------
# A folder (a checkout): walked without following links, bounded


def _folder_entries(top: Path) -> Iterator[tuple[PurePosixPath, Entry]]:
    pending = [PurePosixPath()]
    seen = 0
    while pending:
        here = pending.pop()
        try:
            with os.scandir(top / here) as listing:
                for entry in listing:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        raise SubmissionError(f"{top}: holds more than {MAX_ENTRIES} files and folders (the cap "
                                              f"on entries); hand in the repository without its data.")
                    rel = here / entry.name
                    kind = _folder_kind(entry)
                    if kind == "folder":
                        if entry.name not in _SKIPPED and len(rel.parts) <= MAX_ROOT_DEPTH + 6:
                            pending.append(rel)
                        continue
                    size = entry.stat(follow_symlinks=False).st_size if kind == "file" else 0
                    yield rel, Entry(rel, size, kind)
        except OSError:
            continue


def _folder_kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "a link"
    if entry.is_dir(follow_symlinks=False):
        return "folder"
    if entry.is_file(follow_symlinks=False):
        return "file"
    return "not a regular file (a device, a pipe or a socket)"


# ------------------------------------------------------------------------------------------------
# Archives: nothing extracted, every size read and not believed


def _archive_size(path: Path) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc.strerror}).") from None
    if not stat.S_ISREG(info.st_mode):
        raise SubmissionError(f"{path}: is not a regular file.")
    if info.st_size > MAX_ARCHIVE_BYTES:
        raise SubmissionError(f"{path}: is over {MAX_ARCHIVE_BYTES // (1024 * 1024)} MiB; an archive may be at "
                              f"most that (the cap on size). Leave the data sets out.")


def _zip_files(path: Path, library: Library) -> dict[str, bytes]:
    _archive_size(path)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_ENTRIES:
                raise SubmissionError(f"{path}: holds {len(infos)} entries, more than {MAX_ENTRIES} (the cap on "
                                      f"entries); hand in the repository without its data.")
            entries: dict[PurePosixPath, Entry] = {}
            by_path: dict[PurePosixPath, zipfile.ZipInfo] = {}
            for info in infos:
                rel = _entry_path(info.filename, path)
                if rel is None or _skipped(rel):
                    continue
                mode = info.external_attr >> 16
                # no file type in the mode (zip tools that write permissions alone) is a plain file
                kind = "file" if not stat.S_IFMT(mode) or stat.S_ISREG(mode) else \
                    "a link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode) else \
                    "not a regular file (a device, a pipe or a socket)"
                if kind == "folder":
                    continue
                if rel in entries:
                    raise SubmissionError(f"{path}: holds {rel} twice; make the archive again.")
                entries[rel] = Entry(rel, info.file_size, kind)
                by_path[rel] = info
            chosen = _choose(entries, library, path)
            return {rel: _zip_member(archive, by_path[top], rel) for rel, top in chosen.items()}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError) as exc:
        raise SubmissionError(f"{path}: is not a zip archive that can be read ({exc}).") from None


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, rel: str) -> bytes:
    """The member's bytes, read to at most the cap whatever its header says (a bomb stops here)."""
    with archive.open(info) as member:
        data = member.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"{rel}: unpacks to over {MAX_SOURCE_BYTES // 1024} KiB; a file may be at most "
                              f"{MAX_SOURCE_BYTES // 1024} KiB (the cap on size).")
    return data


class _Capped(io.RawIOBase):
    """A file read through once, that refuses to give more than `limit` bytes (what a tarball unpacks to)."""

    def __init__(self, raw: IO[bytes], limit: int, where: Path) -> None:
        self._raw, self._left, self._where = raw, limit, where

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(min(len(buffer), self._left + 1))
        self._left -= len(data)
        if self._left < 0:
            raise SubmissionError(f"{self._where}: unpacks to over {MAX_UNPACKED_BYTES // (1024 * 1024)} MiB (the "
                                  f"cap on size); hand in the repository without its data.")
        buffer[: len(data)] = data
        return len(data)


def _tar_files(path: Path, library: Library) -> dict[str, bytes]:
    """A tarball read through once, as a stream: entries listed, and the course's files kept as they pass.

    Their contents are kept for every entry that could be one of the course's under some root (the root is
    known only at the end), within the caps on what a package holds."""
    _archive_size(path)
    entries: dict[PurePosixPath, Entry] = {}
    kept: dict[PurePosixPath, bytes] = {}
    kept_bytes = 0
    try:
        with open(path, "rb") as raw, _unpacked(raw) as plain:
            stream = io.BufferedReader(_Capped(plain, MAX_UNPACKED_BYTES, path))  # bytes after unpacking
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for count, member in enumerate(archive, 1):
                    if count > MAX_ENTRIES:
                        raise SubmissionError(f"{path}: holds more than {MAX_ENTRIES} entries (the cap on "
                                              f"entries); hand in the repository without its data.")
                    rel = _entry_path(member.name + ("/" if member.isdir() else ""), path)
                    if rel is None or _skipped(rel):
                        continue
                    kind = "file" if member.isreg() else "a link" if member.issym() or member.islnk() else \
                        "not a regular file (a device, a pipe or a socket)"
                    entries[rel] = Entry(rel, member.size, kind)
                    if kind == "file" and _could_be(library, rel) and member.size <= MAX_SOURCE_BYTES:
                        kept_bytes += member.size
                        if kept_bytes > MAX_PACKAGE_BYTES * 2:
                            raise SubmissionError(f"{path}: holds over {MAX_PACKAGE_BYTES // 1024} KiB of the "
                                                  f"course's files (the cap on size).")
                        member_file = archive.extractfile(member)
                        kept[rel] = member_file.read(MAX_SOURCE_BYTES + 1) if member_file is not None else b""
    except (tarfile.TarError, EOFError, OSError, ValueError, lzma.LZMAError) as exc:
        raise SubmissionError(f"{path}: is not a tarball that can be read ({exc}).") from None
    chosen = _choose(entries, library, path)
    return {rel: kept[top] for rel, top in chosen.items()}


def _unpacked(raw: IO[bytes]) -> Any:
    """The tarball's bytes as they unpack, by its first bytes: gzip, bzip2, xz, or none."""
    head = raw.peek(6)[:6] if isinstance(raw, io.BufferedReader) else b""
    if head.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw, mode="rb")  # each a context manager giving the unpacked bytes
    if head.startswith(b"BZh"):
        return bz2.BZ2File(raw, "rb")
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw, "rb")
    return contextlib.nullcontext(raw)


def _could_be(library: Library, path: PurePosixPath) -> bool:
    """Whether `path` is one of the course's files under some root within MAX_ROOT_DEPTH."""
    skips = range(min(MAX_ROOT_DEPTH, len(path.parts) - 1) + 1)
    return any(matches(library, PurePosixPath(*path.parts[skip:]).as_posix()) for skip in skips)
