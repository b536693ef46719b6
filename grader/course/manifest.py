"""What a batch was asked to do, written before it grades
(batch.json), and the proof `grade merge` asks of shards.

Each `grade batch` records its set-up (exercises, seed, devices, grader version), its
shard K/N, the roster's hash, the whole class it found before sharding, and the
students this run is responsible for. `grade merge` refuses, in one line naming the
folders, shards whose set-ups differ, a shard given twice or missing, a student in two
shards, a shard whose students did not all finish, and a folder that holds reports its
own run did not make. So a gradebook made by merging is the one an unsharded run gives.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from grader import __version__
from grader.core.errors import GraderError
from grader.core.exercise import COURSE_SETTINGS, Device
from grader.core.seeds import secret_id, submission_seed
from grader.judge.catalog import Catalog
from grader.outputs.layout import DONE, MANIFEST, STUDENTS
from grader.run.confine.isolate import Level

MANIFEST_VERSION = 1
#: the gradebook's columns: the assignment's total, each exercise, or both
Columns = Literal["total", "exercises", "both"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Setup:
    """How every submission of the batch is graded; part of what --resume compares."""

    #: the exercises for every submission; empty: each submission names its own
    exercise_ids: tuple[str, ...]
    #: the assignment they make up, when the batch was given one
    assignment: str | None = None
    seed: int = 0
    devices: tuple[Device, ...] = ("cpu", "cuda")
    time_limit: float | None = None
    #: the weakest isolation to grade under (grader.run.confine.isolate): a class always has
    #: classmates to protect
    isolation: Level = "landlock"
    #: the course secret each submission's seed is drawn from (grader.core.seeds); None: every
    #: submission gets `seed`. Never written anywhere: the manifest and the fingerprint hold its id
    secret: bytes | None = field(default=None, repr=False)

    @property
    def seed_notes(self) -> tuple[str, ...]:
        """What each report says of a batch whose submissions all get one seed."""
        if self.secret is not None:
            return ()
        return (
            f"Graded with seed {self.seed}, the same for every submission of this batch (the "
            f"course has no secret to draw a seed per submission from).",
        )

    @property
    def secret_id(self) -> str | None:
        return secret_id(self.secret) if self.secret is not None else None

    def seed_of(self, content: bytes) -> tuple[int, str | None]:
        """The seed of a submission whose digest is of `content`, and the token its report shows
        (or None)."""
        if self.secret is None:
            return self.seed, None
        drawn = submission_seed(self.secret, content)
        return drawn.seed, drawn.token

    def fingerprint(self, catalog: Catalog) -> str:
        """Changes when anything that could change a grade changes: the set-up, the specs, the
        grader."""
        settings = json.dumps([{**asdict(self), "secret": self.secret_id}, __version__])
        digest = hashlib.sha256(settings.encode())
        folders = [catalog.root / exercise_id for exercise_id in sorted(self.exercise_ids)]
        library = catalog.library()
        if library is not None:  # a library course's reference and given files grade too
            folders += [f for f in (library.reference, library.starter) if f is not None]
            digest.update((catalog.root / COURSE_SETTINGS).read_bytes())
        for folder in folders:
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    name = path.relative_to(folder.parent).as_posix()
                    digest.update(name.encode() + path.read_bytes())
        return digest.hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    grader_version: str
    #: Setup.fingerprint: the set-up, the specs and the grader; what --resume compares too
    setup: str
    exercises: tuple[str, ...]
    assignment: str | None
    seed: int
    devices: tuple[str, ...]
    time_limit: float | None
    names: str
    columns: Columns
    roster_sha256: str
    #: ClassList.fingerprint: every student and the hash of what they handed in, before sharding
    klass: str
    #: (K, N), or None for the whole class
    shard: tuple[int, int] | None
    #: the ids of the students this run grades (its shard of the class)
    students: tuple[str, ...]
    #: folder names (grader.outputs.layout.folder_of) of those students, in the same order
    folders: tuple[str, ...]
    not_on_roster: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    #: the id of the course secret each submission's seed was drawn from
    #: (grader.core.seeds.secret_id); None: every submission got `seed`
    secret: str | None = None
    #: the total's column title in gradebook.csv (grade batch --column), if not the assignment's id
    column: str | None = None
    #: students whose submission the LMS's download marked late (Canvas's _LATE), which a batch
    #: grades as any other
    marked_late: tuple[str, ...] = ()

    def to_json(self) -> str:
        data = {"version": MANIFEST_VERSION, **asdict(self)}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    @property
    def label(self) -> str:
        return "the whole class" if self.shard is None else f"shard {self.shard[0]}/{self.shard[1]}"


#: the set-up fields shards of one batch must share, and how a refusal names each
AGREE = (
    ("grader_version", "grader version"),
    ("exercises", "exercises"),
    ("assignment", "assignment"),
    ("seed", "seed"),
    ("secret", "course secret"),
    ("devices", "devices"),
    ("time_limit", "time limit"),
    ("setup", "exercise specs"),
    ("names", "--names"),
    ("columns", "gradebook columns"),
    ("column", "--column"),
    ("roster_sha256", "roster"),
    ("klass", "submissions"),
)


#: fields batches before them did not write
_LATER = frozenset({"secret", "column", "marked_late"})


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GraderError(
            f"{folder}: no {MANIFEST}: not the --out of a grade batch (or of one older than this "
            f"grader); grade it again."
        ) from None
    except (OSError, ValueError) as exc:
        raise GraderError(f"{path}: cannot be read ({exc}); grade that batch again.") from None
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        raise GraderError(
            f"{path}: written by another version of the grader; grade that batch again."
        )
    try:
        values: dict[str, Any] = {
            f.name: data[f.name] for f in fields(Manifest) if f.name not in _LATER
        }
    except KeyError as exc:
        raise GraderError(f"{path}: lacks {exc}; grade that batch again.") from None
    values["secret"] = data.get("secret")  # batches before seeds drawn from a secret had none
    values["column"] = data.get("column")
    values["marked_late"] = tuple(data.get("marked_late") or ())
    for name in ("exercises", "devices", "students", "folders", "not_on_roster", "ignored"):
        values[name] = tuple(values[name])
    values["shard"] = tuple(values["shard"]) if values["shard"] is not None else None
    return Manifest(**values)


def check_shards(folders: Sequence[Path]) -> list[Manifest]:
    """Every folder's manifest, once they prove to be
    the shards of one batch; else one line why not."""
    if len({f.resolve() for f in folders}) != len(folders):
        doubled = next(
            f for i, f in enumerate(folders) if f.resolve() in {g.resolve() for g in folders[:i]}
        )
        raise GraderError(f"{doubled} is given twice; give each shard's folder once.")
    manifests = [read_manifest(f) for f in folders]
    first, first_folder = manifests[0], folders[0]
    for name, label in AGREE:
        for folder, manifest in zip(folders[1:], manifests[1:], strict=True):
            if getattr(manifest, name) != getattr(first, name):
                raise GraderError(
                    f"{first_folder} and {folder} were graded with different {label} "
                    f"({_show(getattr(first, name))} and {_show(getattr(manifest, name))}); grade "
                    f"every shard with the same set-up and submissions."
                )
    _check_split(folders, manifests)
    _check_students(folders, manifests)
    return manifests


def _check_split(folders: Sequence[Path], manifests: Sequence[Manifest]) -> None:
    whole = [f for f, m in zip(folders, manifests, strict=True) if m.shard is None]
    if whole and len(folders) > 1:
        raise GraderError(
            f"{whole[0]} holds the whole class, not a shard; merge either it alone or the shards "
            f"of one batch ({', '.join(map(str, folders))})."
        )
    if whole:
        return
    counts = {m.shard[1] for m in manifests if m.shard is not None}
    if len(counts) > 1:
        raise GraderError(
            f"{', '.join(f'{f} is {m.label}' for f, m in zip(folders, manifests, strict=True))}: "
            f"shards of different splits; grade every shard with the same --shard K/N."
        )
    n = counts.pop()
    owner: dict[int, Path] = {}
    for folder, manifest in zip(folders, manifests, strict=True):
        assert manifest.shard is not None
        k = manifest.shard[0]
        if k in owner:
            raise GraderError(
                f"{owner[k]} and {folder} are both shard {k}/{n}; one of them belongs to another "
                f"shard, or was copied."
            )
        owner[k] = folder
    absent = [k for k in range(1, n + 1) if k not in owner]
    if absent:
        shards = ", ".join(f"{k}/{n}" for k in absent)
        raise GraderError(
            f"shard {shards} missing: merging {', '.join(map(str, folders))} would leave "
            f"{'its' if len(absent) == 1 else 'their'} students out of the gradebook; give every "
            f"shard's folder (grade the missing one first)."
        )


def _check_students(folders: Sequence[Path], manifests: Sequence[Manifest]) -> None:
    owner: dict[str, Path] = {}
    for folder, manifest in zip(folders, manifests, strict=True):
        for student in manifest.students:
            if student in owner:
                raise GraderError(
                    f"student {student} is in {owner[student]} and in {folder}; each student "
                    "belongs to one shard."
                )
            owner[student] = folder
        done = {p.parent.name for p in (folder / STUDENTS).glob(f"*/{DONE}")}
        expected = set(manifest.folders)
        unfinished = sorted(
            s for s, f in zip(manifest.students, manifest.folders, strict=True) if f not in done
        )
        if unfinished:
            raise GraderError(
                f"{folder} ({manifest.label}): {len(unfinished)} of its {len(expected)} students "
                f"have no finished report ({_few(unfinished)}); run its grade batch again with "
                "--resume."
            )
        stray = sorted(done - expected)
        if stray:
            raise GraderError(
                f"{folder} ({manifest.label}) holds reports its run did not make ({_few(stray)}), "
                "left from another run; grade that shard into a fresh --out."
            )


def _few(items: Sequence[str], limit: int = 5) -> str:
    return ", ".join(items[:limit]) + (
        f" and {len(items) - limit} more" if len(items) > limit else ""
    )


def _show(value: object) -> str:
    if isinstance(value, str) and len(value) == 64:
        return value[:12]  # a hash: its start tells them apart
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "none"
    return "none" if value is None else str(value)
