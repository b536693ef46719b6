"""Read a submissions folder as an LMS's bulk download names it: who handed in what, before
any roster.

Four layouts, each documented (with its sources) in docs/lms-downloads.md:

    plain       one file (.py, .ipynb) or folder per student, named by the student (or the
                roster's `submission`)
    canvas      "Download Submissions": flat files `<name>[_late]_<user id>_<file id>_<file name>`
    gradescope  "Export Submissions": `submission_metadata.yml` and one `submission_<id>/`
                folder per submission
    moodle      "Download all submissions": folders
                `<Full Name>_<participant id>_assignsubmission_file[_]/...`, or flat files
                `<Full Name>_<participant id>_assignsubmission_file_<file name>`

Without --names the layout is detected: Gradescope by its metadata file, else the layout most of
the folder's entries follow (Canvas's or Moodle's naming before plain, which every .py file fits);
an entry that does not follow it (a README, the roster dropped in) is skipped and listed. A folder
most of whose entries fit no layout, or not the one --names gives, is refused, saying which fits.
Nothing is renamed on disk: each file keeps its path and gets back the name the student gave it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from grader.core.errors import GraderError
from grader.core.library import ARCHIVES
from grader.core.text import file_name
from grader.course.selection import SUFFIXES, SubmittedFile, files_in

Names = Literal["plain", "canvas", "gradescope", "moodle"]
NAMES: tuple[Names, ...] = ("plain", "canvas", "gradescope", "moodle")
GRADESCOPE_METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 16 * 1024 * 1024

# Canvas (instructure/canvas-lms lib/content_zipper.rb): the prefix is the
# lower-cased sortable name with any `_<digits>_` removed (precisely so that
# the ids can be found), LATE when late, then the user id, or anon_<anonymous
# id> and no name under anonymous grading; only word characters are kept.
_CANVAS_USER = r"(?P<user>\d+|anon_[A-Za-z0-9]+)"
_CANVAS_UPLOAD = re.compile(
    r"(?:(?P<prefix>.*?)_)?" + _CANVAS_USER + r"_(?P<file>\d+)_(?P<name>.+)", re.DOTALL
)
_CANVAS_TEXT = re.compile(r"(?:(?P<prefix>.*?)_)?" + _CANVAS_USER + r"_(?P<kind>text|link)\.html")
# A file uploaded again under a name the student's Canvas files already
# hold becomes name-1.py, name-2.py... (Attachment.make_unique_filename)
_CANVAS_COPY = re.compile(r"(?P<stem>.+)-\d+(?P<suffix>\.[A-Za-z0-9]+)")
# Moodle (mod/assign downloader): underscores in the name become
# spaces, so the last `_<digits>_assignsubmission_` ends the name; team
# submissions carry the group's id, or none for the default group.
_MOODLE = re.compile(
    r"(?P<who>.+?)(?:_(?P<id>\d+))?_assignsubmission_(?P<plugin>[a-z0-9]+)(?:_(?P<file>.*))?",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Found:
    """What one student (or one group member) handed in, as the download names them."""

    #: the LMS's id for the student: Canvas user id, Gradescope
    #: SID (or email), Moodle participant id; plain: the name
    key: str
    #: where it is in the folder: a file or folder name, or the LMS's prefix for the student's files
    origin: str
    files: tuple[SubmittedFile, ...]
    name: str = ""
    email: str = ""
    sis_id: str = ""
    #: the LMS marked it late (Canvas)
    late: bool = False


@dataclass(frozen=True, slots=True)
class Download:
    names: Names
    found: list[Found]
    #: entries that are no one's submission in this layout (a README, a file Canvas did not name)
    ignored: list[str] = field(default_factory=list)


def read_download(folder: Path, names: Names | None = None, *, archives: bool = False) -> Download:
    """The students' files in `folder`, read in the layout `names` (None: detected). `archives`: a
    library course's class, where an archive (a zipped repository) is a student's submission too."""
    if not folder.is_dir():
        raise GraderError(
            f"{folder}: not a folder. grade batch takes a folder with one file or folder per "
            "student, or an LMS's download unzipped."
        )
    chosen = names or detect(folder, archives)
    reader = {"plain": _plain, "canvas": _canvas, "gradescope": _gradescope, "moodle": _moodle}[
        chosen
    ]
    download = _plain(folder, archives) if chosen == "plain" else reader(folder)
    items = _items(folder)
    if names is not None and names != "gradescope" and 2 * len(download.ignored) > len(items):
        raise GraderError(
            f"{folder}: {len(download.ignored)} of its {len(items)} entries do not follow {names} "
            f"names (such as {few(download.ignored)}); {_which_fits(folder, items)}"
        )
    leaving = [
        f"{p.name} (a link out of the submissions folder)"
        for p in folder.iterdir()
        if p.is_symlink() and not inside(p, folder)
    ]
    return (
        dataclasses.replace(download, ignored=[*download.ignored, *leaving])
        if leaving
        else download
    )


def detect(folder: Path, archives: bool = False) -> Names:
    """The layout of `folder`: Gradescope by its metadata
    file, else the one most of its entries follow."""
    if _gradescope_root(folder) is not None:
        return "gradescope"
    items = _items(folder)
    if not items:
        return "plain"
    counts = fit_counts(items, archives)
    if 2 * counts["none"] > len(items):
        raise GraderError(
            f"{folder}: most of its {len(items)} entries fit no layout; "
            f"{_which_fits(folder, items)}"
        )
    fitting = len(items) - counts["none"]  # a README or the roster dropped in has no say
    for names in ("moodle", "canvas"):  # an LMS's names first: its files fit plain too
        if 2 * counts[names] > fitting:
            return names
    return "plain"


def fit_counts(items: Sequence[Path], archives: bool = False) -> dict[str, int]:
    """How many of the entries each layout names as
    (part of) a submission, and how many none does."""
    canvas = [_fits("canvas", _CANVAS_UPLOAD, item) for item in items]
    moodle = [_fits("moodle", _MOODLE, item) for item in items]
    plain = [
        item.is_dir()
        or item.suffix in SUFFIXES
        or (archives and item.name.lower().endswith(ARCHIVES))
        for item in items
    ]
    return {
        "canvas": sum(canvas),
        "moodle": sum(moodle),
        "plain": sum(plain),
        "none": sum(not any(fit) for fit in zip(canvas, moodle, plain, strict=True)),
    }


def _which_fits(folder: Path, items: Sequence[Path]) -> str:
    """Which --names most of the entries follow, or, when none, how many follow each."""
    counts = fit_counts(items)
    best = max(("moodle", "canvas", "plain"), key=lambda n: counts[n])
    if 2 * counts[best] > len(items):
        return f"{counts[best]} of them follow {best} names: give --names {best}."
    tally = ", ".join(f"{counts[name]} {name}" for name in ("canvas", "moodle", "plain"))
    return (
        f"entries that follow each layout: {tally} (plain: a .py file, notebook or folder per "
        f"student), such as {few([i.name for i in items])}. Unzip the LMS's download as it came, "
        "into a folder of its own, and give --names canvas, gradescope, moodle or plain."
    )


def few(names: Sequence[str], limit: int = 4) -> str:
    """A few names for a message, each one short line of printable characters: they
    are the submissions' file names, which may hold terminal escapes or line breaks."""
    shown = [
        "".join(c if c.isprintable() else "?" for c in file_name(name)[:80])
        + ("…" if len(name) > 80 else "")
        for name in names[:limit]
    ]
    return ", ".join(shown) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _fits(names: str, pattern: re.Pattern[str], item: Path) -> bool:
    if names == "canvas":
        return item.is_file() and bool(
            pattern.fullmatch(item.name) or _CANVAS_TEXT.fullmatch(item.name)
        )
    return bool(pattern.fullmatch(item.name))


def _items(folder: Path) -> list[Path]:
    """What the folder holds, but links that lead out of it: a submission that is a link to
    the solution must not be graded as the student's work (the grading process would read it)."""
    return sorted(
        p
        for p in folder.iterdir()
        if not p.name.startswith((".", "_")) and p.name != "__MACOSX" and inside(p, folder)
    )


def inside(path: Path, folder: Path) -> bool:
    """Whether `path`, links followed, is within `folder` (links followed too)."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


# ------------------------------------------------------------------------------------------------


def _plain(folder: Path, archives: bool = False) -> Download:
    found, ignored = [], []
    for item in _items(folder):
        if item.is_dir():
            found.append(Found(key=item.name, origin=item.name, files=tuple(files_in(item))))
        elif item.suffix in SUFFIXES:
            found.append(
                Found(key=item.stem, origin=item.name, files=(SubmittedFile(item.name, item),))
            )
        elif archives and item.name.lower().endswith(ARCHIVES):
            key = item.name[: -len(next(a for a in ARCHIVES if item.name.lower().endswith(a)))]
            found.append(Found(key=key, origin=item.name, files=(SubmittedFile(item.name, item),)))
        else:
            ignored.append(item.name)
    return Download("plain", found, ignored)


def _canvas(folder: Path) -> Download:
    by_user: dict[str, list[tuple[SubmittedFile, str, bool]]] = {}
    ignored = []
    for item in _items(folder):
        match = _CANVAS_UPLOAD.fullmatch(item.name) if item.is_file() else None
        text = _CANVAS_TEXT.fullmatch(item.name) if item.is_file() else None
        if match is None and text is None:
            ignored.append(item.name)
            continue
        hit = match or text
        assert hit is not None
        prefix, late = _canvas_prefix(hit["prefix"] or "")
        shown = match["name"] if match else f"{text['kind'] if text else 'text'}.html"
        by_user.setdefault(hit["user"], []).append((SubmittedFile(shown, item), prefix, late))
    found = []
    for user, entries in sorted(by_user.items()):
        files = _canvas_names([f for f, _, _ in entries])
        prefix = entries[0][1]
        found.append(
            Found(
                key=user,
                origin=f"{prefix}_{user}" if prefix else user,
                files=files,
                name=prefix,
                late=any(late for _, _, late in entries),
            )
        )
    return Download("canvas", found, ignored)


def _canvas_prefix(prefix: str) -> tuple[str, bool]:
    """The sanitized name, and whether Canvas marked
    the submission late (`_late` before the user id)."""
    if prefix.casefold() == "late":  # anonymous grading: no name before it
        return "", True
    if prefix.casefold().endswith("_late"):  # LATE; older Canvas lower-cased the whole prefix
        return prefix[: -len("_late")], True
    return prefix, False


def _canvas_names(files: Sequence[SubmittedFile]) -> tuple[SubmittedFile, ...]:
    """The students' own file names: `helpers-1.py` is
    `helpers.py` where no other file takes that name."""
    names = [f.name for f in files]
    renamed = []
    for file in files:
        copy = _CANVAS_COPY.fullmatch(file.name)
        original = f"{copy['stem']}{copy['suffix']}" if copy else file.name
        keep = copy is None or original in names or sum(_original(n) == original for n in names) > 1
        renamed.append(file if keep else SubmittedFile(original, file.path))
    return tuple(renamed)


def _original(name: str) -> str:
    copy = _CANVAS_COPY.fullmatch(name)
    return f"{copy['stem']}{copy['suffix']}" if copy else name


def _gradescope_root(folder: Path) -> Path | None:
    """The folder holding submission_metadata.yml: `folder`, or the one export folder inside it."""
    if (folder / GRADESCOPE_METADATA).is_file():
        return folder
    inner = [p for p in _items(folder) if p.is_dir()]
    if len(inner) == 1 and (inner[0] / GRADESCOPE_METADATA).is_file() and len(_items(folder)) == 1:
        return inner[0]
    return None


def _gradescope(folder: Path) -> Download:
    root = _gradescope_root(folder)
    if root is None:
        raise GraderError(
            f"{folder}: no {GRADESCOPE_METADATA} here: not an unzipped Gradescope export "
            "(Assignment > Review Grades > Export Submissions). Use --names plain for a folder "
            "per student."
        )
    metadata = _gradescope_metadata(root / GRADESCOPE_METADATA)
    found = []
    for folder_name, record in sorted(metadata.items()):
        submitters = record.get(":submitters") if isinstance(record, dict) else None
        if not isinstance(submitters, list) or not submitters:
            raise GraderError(f"{root / GRADESCOPE_METADATA}: {folder_name} lists no :submitters:.")
        files = tuple(files_in(root / folder_name)) if (root / folder_name).is_dir() else ()
        for person in submitters:  # a group submission: every member is graded on the same files
            if not isinstance(person, dict):
                raise GraderError(
                    f"{root / GRADESCOPE_METADATA}: {folder_name}: a submitter is not a mapping."
                )
            sid, email = _text(person.get(":sid")), _text(person.get(":email"))
            if not sid and not email:
                raise GraderError(
                    f"{root / GRADESCOPE_METADATA}: {folder_name}: a submitter has neither :sid: "
                    "nor :email:, so the grader cannot tell who it is."
                )
            found.append(
                Found(
                    key=sid or email,
                    origin=str(folder_name),
                    files=files,
                    name=_text(person.get(":name")),
                    email=email,
                    sis_id=sid,
                )
            )
    listed = set(metadata)
    ignored = [
        p.name for p in _items(root) if p.name != GRADESCOPE_METADATA and p.name not in listed
    ]
    return Download("gradescope", found, ignored)


def _gradescope_metadata(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_METADATA_BYTES:
            raise GraderError(
                f"{path}: larger than {MAX_METADATA_BYTES // 2**20} MiB; not Gradescope's metadata."
            )
        data = yaml.load(
            path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        )
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GraderError(
            f"{path}: cannot be read as Gradescope's submission metadata ({exc})."
        ) from None
    if not isinstance(data, dict):
        raise GraderError(f"{path}: not a mapping of submission folders to their submitters.")
    return {str(k): v for k, v in data.items()}


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()


def _moodle(folder: Path) -> Download:
    by_who: dict[tuple[str, str], list[SubmittedFile]] = {}
    ignored = []
    for item in _items(folder):
        match = _MOODLE.fullmatch(item.name)
        if match is None:
            ignored.append(item.name)
            continue
        key = (match["who"], match["id"] or "")
        files = by_who.setdefault(key, [])
        if item.is_dir():
            files += files_in(item)
        elif match["file"]:
            files.append(SubmittedFile(match["file"], item))
        else:
            ignored.append(item.name)
    found = [
        Found(key=pid or who, origin=f"{who}_{pid}" if pid else who, files=tuple(files), name=who)
        for (who, pid), files in sorted(by_who.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    ]
    return Download("moodle", found, ignored)
