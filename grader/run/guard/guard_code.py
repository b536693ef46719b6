"""What the child's guard (grader.run.guard.guard) reads of frames, files and code: who asked, and
whether bytes or source that claim to be a file of the library's are that file. Nothing here trusts
a name: a file name is believed only because the guard refuses to compile or load code under a
trusted file's name unless it is that file's.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from opcode import opmap
from types import FrameType
from typing import Any

_CODE = type(compile("", "", "exec"))
_lstat, _readlink, _open, _read, _close, _access, _fstat = (
    os.lstat,
    os.readlink,
    os.open,
    os.read,
    os.close,
    os.access,
    os.fstat,
)
_statvfs, _ST_RDONLY, _getuid = os.statvfs, os.ST_RDONLY, os.getuid
_S_ISLNK, _S_ISREG, _RDONLY, _W_OK = (
    stat.S_ISLNK,
    stat.S_ISREG,
    os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW,
    os.W_OK,
)
_IMPORT_NAME, _EXTENDED_ARG = opmap["IMPORT_NAME"], opmap["EXTENDED_ARG"]
#: where the submission may write, and where all it holds is its own
#: (grader.run.guard.guard.install's writable, owned)
Places = tuple[tuple[str, ...], tuple[str, ...]]
#: the most of a file read to compare it with code claiming to be it
MAX_FILE = 64 * 1024 * 1024
#: standard-library functions that read frames and give back only text (names, lines)
_TEXT_ONLY_FRAME_USERS = frozenset(
    {
        ("traceback.py", "_extract_from_extended_frame_gen"),
        ("traceback.py", "extract_stack"),
        ("traceback.py", "format_stack"),
        ("traceback.py", "print_stack"),
        ("logging/__init__.py", "findCaller"),
        ("collections/__init__.py", "namedtuple"),
        ("typing.py", "_caller"),
        ("enum.py", "_create_"),
        ("warnings.py", "warn"),
    }
)


def text(value: object) -> str:
    """Exact text of a str (or its subclass, whose methods are never called here); '' for anything
    else."""
    return str.__str__(value) if isinstance(value, str) and issubclass(type(value), str) else ""


def inside(filename: str, folders: Sequence[str]) -> bool:
    return filename.startswith(("<probe ", "<frozen ")) or any(
        filename.startswith(f.rstrip("/") + "/") for f in folders
    )


def machinery(filename: str, own: frozenset[str]) -> bool:
    """Import machinery, looked through to find who asked for a module (the guard's own import hook
    too)."""
    return (
        filename.startswith(("<frozen importlib.", "<frozen zipimport>"))
        or "/importlib/" in filename
        or filename.endswith(("/pkgutil.py", "/runpy.py"))
        or filename in own
    )


def asker(frame: FrameType | None, own: frozenset[str]) -> FrameType | None:
    while frame is not None and machinery(text(frame.f_code.co_filename), own):
        frame = frame.f_back
    return frame


def where(frame: FrameType | None, trusted: Sequence[str], own: frozenset[str]) -> str:
    """The submission's line that did it: the innermost frame that is not the grader's or the
    library's."""
    while frame is not None and (
        inside(text(frame.f_code.co_filename), trusted)
        or machinery(text(frame.f_code.co_filename), own)
    ):
        frame = frame.f_back
    if frame is None:
        return ""
    return f"{text(frame.f_code.co_filename)}:{frame.f_lineno}"


def frames_allowed(
    frame: FrameType | None, trusted: Sequence[str], stdlib: str, own: frozenset[str]
) -> bool:
    """Whether a frame may be handed out here: asked for by the grader, a package, or a library
    function that keeps only text of it; never by the submission, directly or through the standard
    library."""
    while frame is not None:
        code = frame.f_code
        filename = text(code.co_filename)
        library = filename.startswith(stdlib) and "-packages/" not in filename
        if library and (filename[len(stdlib) :], code.co_name) in _TEXT_ONLY_FRAME_USERS:
            return True
        if not (library or filename.startswith("<frozen ") or filename in own):
            return inside(filename, trusted)
        frame = frame.f_back
    return True


def module_name(code: object, trusted: Sequence[str]) -> str | None:
    """The module a module's code object belongs to, from its file under one of the `trusted`
    folders."""
    if type(code) is not _CODE or code.co_name != "<module>":
        return None
    filename = text(code.co_filename)
    for folder in trusted:
        prefix = folder.rstrip("/") + "/"
        if filename.startswith(prefix) and filename.endswith(".py"):
            parts = filename[len(prefix) : -3].split("/")
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def stmt_import(frame: FrameType | None) -> str | None:
    """The module an `import` statement at `frame`'s current instruction names; None where the frame
    is not at one (a call of __import__ or importlib: then whatever it asks for is the frame's own
    asking)."""
    if frame is None:
        return None
    code = frame.f_code
    raw = code.co_code
    at = frame.f_lasti
    if not 0 <= at < len(raw) - 1 or raw[at] != _IMPORT_NAME:
        return None
    arg, back = raw[at + 1], at - 2
    shift = 8
    while back >= 0 and raw[back] == _EXTENDED_ARG:
        arg |= raw[back + 1] << shift
        shift += 8
        back -= 2
    names = code.co_names
    return text(names[arg]) if arg < len(names) else None


def resolved(path: str) -> str | None:
    """`path` with every link followed, by lstat and readlink alone (os.path.realpath is Python code
    whose module a submission can rebind); None if it cannot be worked out."""
    if not path.startswith("/"):
        return None
    todo = [p for p in path.split("/") if p]
    done: list[str] = []
    hops = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        current = "/" + "/".join([*done, part])
        try:
            info = _lstat(current)
        except OSError:
            return None
        if _S_ISLNK(info.st_mode):
            hops += 1
            target = _readlink(current)
            if hops > 40 or type(target) is not str:
                return None
            todo = [p for p in target.split("/") if p] + todo
            if target.startswith("/"):
                done = []
            continue
        done.append(part)
    return "/" + "/".join(done)


def trusted_file(path: str, places: Places) -> str | None:
    """The real path of `path` if it is a file the submission cannot change: outside the scratch
    folders, or in a read-only folder inside them (a checkout or environment under /tmp is bound
    read-only into the child's tree), or plainly another user's there; never in a folder wholly its
    own. Links are followed here, by lstat and readlink alone."""
    real = resolved(path)
    if real is None:
        return None
    writable, owned = places
    if any(real.startswith(w.rstrip("/") + "/") for w in owned):
        return None
    if any(real.startswith(w.rstrip("/") + "/") for w in writable):
        if _may_write(real) or _may_write(real.rpartition("/")[0] or "/"):
            return None
    return real


def _may_write(path: str) -> bool:
    # Not os.access alone, which asks the mode: a run owns what it made, whatever its mode (a 0444
    # .pyc in a 0555 folder); nothing on a read-only mount was written by it.
    try:
        return not _statvfs(path).f_flag & _ST_RDONLY and (
            _access(path, _W_OK) or _lstat(path).st_uid == _getuid()
        )
    except OSError:
        return True


def is_file(path: str, data: Any, places: Places, skip: int = 0) -> bool:
    """Whether `data` (exact bytes, a memoryview of exact bytes, or text) is the content of the
    trusted file `path`, less its first `skip` bytes (a .pyc's header)."""
    kind = type(data)
    if kind is memoryview:
        if type(data.obj) is not bytes:  # a bytearray could change after it is compared
            return False
        data = bytes(data)
    elif kind is str:
        data = str.__str__(data).encode("utf-8")
    elif kind is not bytes:
        return False
    real = trusted_file(path, places)
    if real is None:
        return False
    try:
        fd = _open(real, _RDONLY)
    except OSError:
        return False
    try:
        if not _S_ISREG(_fstat(fd).st_mode):
            return False
        chunks = []
        size = 0
        while size <= MAX_FILE and (chunk := _read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        _close(fd)
    return bool(b"".join(chunks)[skip:] == data)
