"""Which version of each exercise a pack holds: a fingerprint per exercise, written by `grade
release` to the pack's exercises/pack.json, sent by `grade submit` with what it asks the server, and
compared there with the course's exercises as they are now (grader.service.packs). A pack whose
exercise changed since it was released is stale: its public checks, its expected values or its
starter may not be the course's any more, and the student's own `grade` then disagrees with the
server's.

A fingerprint is what a pack is made from, hidden checks left out: the exercise's spec without its
hidden probes, and every other file of its folder (starter, solution, mutants: the pack's expected
values and mistakes come from them), and the course's settings and operations where the catalog has
them. Changing a hidden check alone leaves the packs as they are. A pack released again from a pack
carries the first pack's fingerprints (its folders hold no solution to make them from).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from grader.core.errors import GraderError
from grader.core.exercise import COURSE_OPS, COURSE_SETTINGS
from grader.judge.catalog import SPEC_NAME
from grader.judge.spec_yaml import Loader

#: the pack's record of its exercises' fingerprints, in its exercises folder
PACK_FILE = "pack.json"
#: the request header `grade submit` sends them in: "id=fingerprint,id=fingerprint"
HEADER = "X-Grader-Pack"
#: a fingerprint is this many hex digits of a SHA-256
LENGTH = 20
#: what the server reads of the header: a pack of a course's exercises fits well inside
MAX_HEADER = 8192
MAX_EXERCISES = 200
_ENTRY = re.compile(rf"([A-Za-z0-9][A-Za-z0-9_.-]{{0,99}})=([0-9a-f]{{{LENGTH}}})")


def fingerprint(folder: Path) -> str:
    """The fingerprint of the exercise in `folder` (its exercise.yaml, and the files beside it)."""
    carried = _carried(folder)
    if carried is not None:
        return carried
    digest = hashlib.sha256()
    spec = yaml.load((folder / SPEC_NAME).read_text(encoding="utf-8"), Loader=Loader)
    if isinstance(spec, dict) and isinstance(spec.get("probes"), list):
        spec = {
            **spec,
            "probes": [
                p
                for p in spec["probes"]
                if not (isinstance(p, dict) and p.get("visibility") == "hidden")
            ],
        }
    digest.update(json.dumps(spec, sort_keys=True, default=str).encode())
    files = [
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.name != SPEC_NAME
        and "__pycache__" not in p.parts
        and p.suffix != ".pyc"
    ]
    files += [
        folder.parent / name
        for name in (COURSE_OPS, COURSE_SETTINGS)
        if (folder.parent / name).is_file()
    ]
    for path in sorted(files, key=lambda p: (p.parent != folder.parent, p.as_posix())):
        name = (
            path.relative_to(folder).as_posix()
            if path.is_relative_to(folder)
            else f"../{path.name}"
        )
        digest.update(f"\0{name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:LENGTH]


def _carried(folder: Path) -> str | None:
    """A released pack's exercise: the fingerprint its pack.json carries."""
    record = folder.parent / PACK_FILE
    if not record.is_file():
        return None
    return read_fingerprints(record).get(folder.name)


def write_fingerprints(exercises_folder: Path, folders: Mapping[str, Path]) -> Path:
    """The pack's pack.json: each exercise it holds (id -> its source folder), fingerprinted."""
    from grader import __version__

    path = exercises_folder / PACK_FILE
    data = {
        "grader": __version__,
        "exercises": {i: fingerprint(folders[i]) for i in sorted(folders)},
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def read_fingerprints(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GraderError(
            f"{path}: the pack's record of its exercises cannot be read ({exc}); get the pack "
            f"again from your course."
        ) from None
    found = data.get("exercises") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def pack_near(*starts: Path) -> dict[str, str]:
    """The fingerprints of the pack a student works in: exercises/pack.json in one of the folders
    `starts` are in, or above them; none found, none."""
    for start in starts:
        folder = start.resolve()
        for candidate in (folder, *folder.parents):
            record = candidate / "exercises" / PACK_FILE
            if record.is_file():
                return read_fingerprints(record)
    return {}


def header_value(fingerprints: Mapping[str, str]) -> str:
    return ",".join(
        f"{k}={v}" for k, v in sorted(fingerprints.items()) if _ENTRY.fullmatch(f"{k}={v}")
    )


def parse_header(value: str | None) -> dict[str, str]:
    """What a request's header says its pack holds: well-formed entries only, bounded (it is a
    student's text)."""
    if not value or len(value) > MAX_HEADER:
        return {}
    found: dict[str, str] = {}
    for entry in value.split(",")[:MAX_EXERCISES]:
        matched = _ENTRY.fullmatch(entry.strip())
        if matched:
            found[matched.group(1)] = matched.group(2)
    return found


def stale(held: Mapping[str, str], current: Mapping[str, Any]) -> list[str]:
    """The exercises whose fingerprint in the pack (`held`) is not the course's (`current`) now."""
    return sorted(i for i, value in held.items() if i in current and current[i] != value)
