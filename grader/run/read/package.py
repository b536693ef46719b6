"""Read a student's package (a folder, a git checkout, a zip or a tarball) on the trusted side,
running none of it.

The course names the files a repository hands in (globs under its root); everything else, the
student's own tests, conftest.py and setup.py included, is never read. Every archive is hostile: an
entry's name is only a name (an absolute path, `..` or a drive is refused, never joined to a
folder), nothing is extracted, a link or a device among the course's files is refused, and what is
read is bounded in entries, bytes unpacked and bytes kept, whatever the headers say. A refusal is a
`SubmissionError` that says which cap or rule, and what to do.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import zipfile
from collections.abc import Iterator
from functools import cache, partial
from pathlib import Path, PurePosixPath

from grader.core.library import ARCHIVES, Library
from grader.run.read.archive import MAX_ENTRIES, SKIPPED, Entry, tar_files, zip_files
from grader.run.read.given import with_given
from grader.run.read.load import (
    MAX_SOURCE_BYTES,
    SourceCell,
    Submission,
    SubmissionError,
    read_capped,
)

#: the course's files one package may hold
MAX_PACKAGE_FILES = 200
#: their bytes together
MAX_PACKAGE_BYTES = 8 * 1024 * 1024
#: folders down from the top where the repository's root may lie (an archive often adds one or two)
MAX_ROOT_DEPTH = 3


def is_package(path: Path) -> bool:
    """Whether `path` is read as a package: a folder, or an archive by its name."""
    return path.is_dir() or path.name.lower().endswith(ARCHIVES)


def read_package(path: Path, library: Library) -> Submission:
    """The course's files of the repository at `path`, as a submission of kind "package"."""
    return _submission(path, package_files(path, library), library)


def package_files(path: Path, library: Library) -> dict[str, bytes]:
    """The course's files of the repository at `path` (a folder or an archive), by their path in it,
    as handed in."""
    name = path.name.lower()
    if path.is_dir():
        entries = dict(_folder_entries(path))
        found = _choose(entries, library, path)
        return {rel: read_capped(path / top, MAX_SOURCE_BYTES) for rel, top in found.items()}
    if name.endswith(".zip"):
        return zip_files(path, partial(_choose, library=library, where=path))
    if name.endswith(ARCHIVES):
        return tar_files(
            path,
            partial(_choose, library=library, where=path),
            partial(_could_be, library),
            MAX_PACKAGE_BYTES * 2,
        )
    if not path.exists():
        raise SubmissionError(
            f"{path}: no such file or folder. Give the repository's folder, or its .zip or tarball."
        )
    raise SubmissionError(
        f"{path}: is neither a folder nor an archive (.zip, .tar, .tar.gz, .tgz); hand in "
        f"the repository whole."
    )


def package_zip(path: Path, library: Library) -> bytes:
    """The course's files of the repository at `path` as one zip, the same bytes for the same files
    (no dates, no owners): what `grade submit` sends for a library course."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, data in sorted(package_files(path, library).items()):
            info = zipfile.ZipInfo(rel, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16  # a plain file, read and write for its owner
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return out.getvalue()


def _submission(path: Path, contents: dict[str, bytes], library: Library) -> Submission:
    """The package's files as text, its digest (of what the student handed in), and the course's
    given files in place (grader.run.read.given)."""
    texts = {}
    digest = hashlib.sha256()
    for rel in sorted(contents):
        data = contents[rel]
        if b"\0" in data:
            raise SubmissionError(f"{rel}: is a binary file, not Python source.")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise SubmissionError(
                f"{rel}, line {line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8."
            ) from None
        texts[rel] = text
        digest.update(f"{rel}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    texts, notes = with_given(texts, library)
    files = tuple(SourceCell(rel, texts[rel]) for rel in sorted(texts))
    return Submission(
        path=path,
        name=path.name,
        kind="package",
        cells=(),
        sha256=digest.hexdigest(),
        declared_exercise=None,
        declared_assignment=None,
        notes=notes,
        package=files,
    )


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


def _choose(
    entries: dict[PurePosixPath, Entry], library: Library, where: Path
) -> dict[str, PurePosixPath]:
    """The course's files among `entries`, by their path in the repository -> their path under the
    top.

    The repository's root is the shallowest folder (the top, or one up to MAX_ROOT_DEPTH down) under
    which some of the course's files lie, and of those the one with the most: a zip of a clone holds
    `repo-main/...`, and a copy deeper down (a released pack's exercises/starter/) never wins over
    the top."""
    under: dict[PurePosixPath, dict[str, PurePosixPath]] = {}
    for path in entries:
        for skip in range(min(MAX_ROOT_DEPTH, len(path.parts) - 1) + 1):
            rel = PurePosixPath(*path.parts[skip:]).as_posix()
            if matches(library, rel):
                under.setdefault(PurePosixPath(*path.parts[:skip]), {})[rel] = path
    roots = sorted(under, key=lambda root: (len(root.parts), -len(under[root]), str(root)))
    best = under[roots[0]] if roots else {}
    if not best:
        raise SubmissionError(
            f"{where}: holds none of the files this course takes ({', '.join(library.files)}). "
            f"Hand in the repository whole, as it was cloned."
        )
    if len(best) > MAX_PACKAGE_FILES:
        raise SubmissionError(
            f"{where}: holds {len(best)} of the course's files; a package may hold at most "
            f"{MAX_PACKAGE_FILES} (the cap on files). Remove the copies you do not need."
        )
    for rel, path in best.items():
        entry = entries[path]
        if entry.kind != "file":
            raise SubmissionError(
                f"{rel}: is {entry.kind}, not a file; the grader reads only files handed in "
                f"whole. Replace it with the file itself."
            )
        if entry.size > MAX_SOURCE_BYTES:
            raise SubmissionError(
                f"{rel}: is over {MAX_SOURCE_BYTES // 1024} KiB; a file may be at most "
                f"{MAX_SOURCE_BYTES // 1024} KiB (the cap on size)."
            )
    total = sum(entries[p].size for p in best.values())
    if total > MAX_PACKAGE_BYTES:
        raise SubmissionError(
            f"{where}: the course's files hold {total // 1024} KiB; a package may hold at most "
            f"{MAX_PACKAGE_BYTES // 1024} KiB (the cap on size)."
        )
    return best


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
                        raise SubmissionError(
                            f"{top}: holds more than {MAX_ENTRIES} files and folders (the cap "
                            f"on entries); hand in the repository without its data."
                        )
                    rel = here / entry.name
                    kind = _folder_kind(entry)
                    if kind == "folder":
                        if entry.name not in SKIPPED and len(rel.parts) <= MAX_ROOT_DEPTH + 6:
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


def _could_be(library: Library, path: PurePosixPath) -> bool:
    """Whether `path` is one of the course's files under some root within MAX_ROOT_DEPTH."""
    skips = range(min(MAX_ROOT_DEPTH, len(path.parts) - 1) + 1)
    return any(matches(library, PurePosixPath(*path.parts[skip:]).as_posix()) for skip in skips)
