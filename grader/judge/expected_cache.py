"""Expected values kept on disk between `grade` calls,
and trusted only where this user alone could write them.

From a course's checkout, a torch exercise's expected values come from its
solution, run here: this process imports torch, which costs as much as the
whole run of the submission. The values depend only on the exercise's files,
the seed, and the code that computes them, so one run keeps them for the next:

    $AUTOGRADER_CACHE (a folder, or "off"), else $XDG_CACHE_HOME/autograd-grader/expected,
    else ~/.cache/autograd-grader/expected

An entry is named by a hash of everything its values depend on (every file of the exercise's
folder, the course's reference_ops.py, the probes' inputs, the seed, the grader's and the reference
engine's source, the Python, torch and numpy it ran on), so a change to any of them is a miss,
never a stale hit. Only the trusted side writes entries, and a child can never write them where it
is confined at all (another uid, a file tree without the folder, or Landlock writing only to its
scratch folder); with isolation `none` the submission runs as this user, so the grader neither
reads nor writes the cache (grader.judge.grading). An entry is read only from a folder and a file
this user owns that nobody else may write, opened without following links, and parsed as strictly
as a child's reply; anything else is a miss and the values are computed again, never an error.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import platform
import secrets
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grader import __version__
from grader.core.exercise import Exercise
from grader.judge.oracle import Expected, expected_from_data, expected_to_data
from grader.run.inputs import Inputs, input_to_data

#: bump when an entry's layout or meaning changes
FORMAT = 1
#: entries kept; past it, the oldest go when a new one is written
MAX_ENTRIES = 256
#: an entry larger than this is not read (only this
#: user writes them, but a bug should not fill memory)
MAX_ENTRY_BYTES = 32 * 1024 * 1024
_ENV = "AUTOGRADER_CACHE"


def cache_folder() -> Path | None:
    """Where this user's entries are kept, or None where $AUTOGRADER_CACHE is "off"."""
    chosen = os.environ.get(_ENV, "").strip()
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    try:
        root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    except RuntimeError:  # no home to keep it in: compute every time
        return None
    return root / "autograd-grader" / "expected"


class ExpectedStore:
    """This user's expected values on disk: `load` what
    an earlier run computed, `save` what this one did."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def for_user(cls) -> ExpectedStore | None:
        folder = cache_folder()
        return cls(folder) if folder is not None else None

    def load(
        self, exercise: Exercise, inputs: Sequence[Inputs], seed: int
    ) -> tuple[Expected, ...] | None:
        """The values an earlier run stored for exactly this exercise, inputs, seed
        and code; None if none is there that this user alone could have written."""
        try:
            key = entry_key(exercise, inputs, seed)
            with _folder(self.folder, create=False) as fd:
                data = _read(fd, f"{key}.json")
            return None if data is None else _parse(data, key, exercise)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(
        self, exercise: Exercise, inputs: Sequence[Inputs], seed: int, values: Sequence[Expected]
    ) -> None:
        """Keep `values` for the next run, if they read
        back exactly as they are (else they are not kept)."""
        try:
            key = entry_key(exercise, inputs, seed)
            text = json.dumps(_entry(key, exercise, values))
            if _parse(text.encode(), key, exercise) != tuple(values):
                return  # e.g. a NaN, which equals nothing: computing again is always right
            with _folder(self.folder, create=True) as fd:
                _write(fd, f"{key}.json", text.encode())
                _prune(fd)
        except (OSError, ValueError, KeyError, TypeError):
            return  # a cache that cannot be written costs the next run time, never a result


def entry_key(exercise: Exercise, inputs: Sequence[Inputs], seed: int) -> str:
    """A hash of everything the exercise's expected values depend on."""
    digest = hashlib.sha256()
    header = {
        "format": FORMAT,
        "grader": __version__,
        "python": sys.version,
        "machine": platform.machine(),
        "exercise": exercise.id,
        "seed": seed,
        "code": _code_digest(),
        "packages": {name: _package_digest(name) for name in ("torch", "numpy")},
        "inputs": [
            {name: input_to_data(value) for name, value in probe.items()} for probe in inputs
        ],
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    files = sorted(
        p for p in exercise.folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    if exercise.course_ops is not None:
        files.append(exercise.course_ops)
    for path in files:
        name = (
            str(path.relative_to(exercise.folder))
            if path.is_relative_to(exercise.folder)
            else f"../{path.name}"
        )
        content = path.read_bytes()
        digest.update(f"\0{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


@functools.cache
def _code_digest() -> str:
    """The source of the grader and of the reference engine: what computes expected values."""
    digest = hashlib.sha256()
    for package in ("grader", "reference"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations is not None
        root = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(root.rglob("*.py")):
            content = path.read_bytes()
            digest.update(f"\0{package}/{path.relative_to(root)}\0{len(content)}\0".encode())
            digest.update(content)
    return digest.hexdigest()


@functools.cache
def _package_digest(name: str) -> str:
    """Which build of a package this is, read from its
    version.py without importing it (that is the cost saved)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        return "absent"
    version = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    return hashlib.sha256(version.read_bytes()).hexdigest() if version.is_file() else "unknown"


def _entry(key: str, exercise: Exercise, values: Sequence[Expected]) -> dict[str, Any]:
    probes = [
        {"name": probe.name, "disagreements": list(value.disagreements)} | expected_to_data(value)
        for probe, value in zip(exercise.probes, values, strict=True)
    ]
    return {"format": FORMAT, "key": key, "exercise": exercise.id, "probes": probes}


def _parse(data: bytes, key: str, exercise: Exercise) -> tuple[Expected, ...]:
    """An entry's values, checked as strictly as a child's
    reply: exact keys and types, this key, these probes."""
    entry = json.loads(data)
    if type(entry) is not dict or set(entry) != {"format", "key", "exercise", "probes"}:
        raise ValueError("not an entry")
    if entry["format"] != FORMAT or entry["key"] != key or entry["exercise"] != exercise.id:
        raise ValueError("an entry for something else")
    probes = entry["probes"]
    if type(probes) is not list or [p.get("name") if type(p) is dict else None for p in probes] != [
        p.name for p in exercise.probes
    ]:
        raise ValueError("not this exercise's probes")
    values = []
    for probe in probes:
        disagreements = probe.pop("disagreements", None)
        if type(disagreements) is not list or not all(type(d) is str for d in disagreements):
            raise ValueError("disagreements are not a list of texts")
        del probe["name"]
        values.append(expected_from_data(probe, tuple(disagreements)))
    return tuple(values)


def _trusted(info: os.stat_result) -> bool:
    """Owned by this user, and nobody else may write it."""
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@contextmanager
def _folder(folder: Path, *, create: bool) -> Iterator[int]:
    """The cache folder, opened without following a link,
    if this user owns it and nobody else may write it."""
    if create:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not _trusted(os.fstat(fd)):
            raise PermissionError(f"{folder}: not this user's alone")
        yield fd
    finally:
        os.close(fd)


def _read(folder: int, name: str) -> bytes | None:
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=folder
        )
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or not _trusted(info) or info.st_size > MAX_ENTRY_BYTES:
            return None
        return file.read(MAX_ENTRY_BYTES + 1)


def _write(folder: int, name: str, data: bytes) -> None:
    """Write whole or not at all: a reader never sees half an entry."""
    partial = f".{name}.{secrets.token_hex(8)}"
    fd = os.open(
        partial,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=folder,
    )
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(partial, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        os.unlink(partial, dir_fd=folder)
        raise


def _prune(folder: int) -> None:
    """Keep the newest MAX_ENTRIES entries: every change to
    an exercise or to the grader leaves old ones behind."""
    entries = []
    for name in os.listdir(folder):
        if name.endswith(".json") and not name.startswith("."):
            try:
                entries.append(
                    (os.stat(name, dir_fd=folder, follow_symlinks=False).st_mtime_ns, name)
                )
            except FileNotFoundError:
                continue
    for _, name in sorted(entries, reverse=True)[MAX_ENTRIES:]:
        try:
            os.unlink(name, dir_fd=folder)
        except FileNotFoundError:
            continue
