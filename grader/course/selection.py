"""Choose the file to grade among the files a student
handed in, and the modules beside it that it may import.

A student's folder (or an LMS download's files of one student) may hold several files. The
graded file is the one that answers the exercise: the one that says so (a `# exercise: ID`
line, or the notebook's metadata), or else the only one that defines every name the
exercise asks for. With a single file there is nothing to choose. No match, or more than
one, is a problem in that student's report that lists the candidates and what each defines.
The other `.py` files in the graded file's folder travel with it as siblings the child can
import. Nothing here runs student code: files are read and parsed, never executed.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.core.text import file_name
from grader.run.read.load import (
    MAX_NOTEBOOK_BYTES,
    MAX_SOURCE_BYTES,
    SourceCell,
    Submission,
    load_submission,
    read_capped,
)
from grader.run.read.syntax import syntax_tree

SUFFIXES = (".py", ".ipynb")
#: more files than this in one student's submission is not an answer to an exercise
MAX_FILES = 50
#: how deep a folder is searched (an unzipped upload often adds a folder or two)
MAX_DEPTH = 4
#: entries of a student's folder looked at, at most
MAX_ENTRIES = 2000
#: what the file systems and zip tools of students add, never their work
_JUNK_PARTS = frozenset(
    {"__pycache__", "__MACOSX", ".ipynb_checkpoints", ".git", "node_modules", ".venv", "venv"}
)
#: a sibling is imported by its name: only a valid module name can be
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.py")


@dataclass(frozen=True, slots=True)
class SubmittedFile:
    """One file a student handed in."""

    #: the name the student gave it (an LMS may have renamed the file on disk)
    name: str
    path: Path

    def __post_init__(self) -> None:
        # a name of any bytes, as text any format carries
        object.__setattr__(self, "name", file_name(self.name))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file that could be the answer, and what it says about itself."""

    file: SubmittedFile
    #: what it names with `# exercise: ID` / `# assignment: ID` or the notebook's metadata
    declared: tuple[str, ...]
    #: the names it binds at the top level (classes, functions, assignments)
    defines: tuple[str, ...]
    #: why it cannot be read, if it cannot
    problem: str = ""

    def describe(self) -> str:
        if self.problem:
            return f"{self.file.name} ({self.problem})"
        says = f"says it answers {', '.join(self.declared)}; " if self.declared else ""
        names = ", ".join(self.defines[:8]) + (", ..." if len(self.defines) > 8 else "")
        return (
            f"{self.file.name} "
            f"({says}{'defines ' + names if names else 'defines nothing at the top level'})"
        )


@dataclass(frozen=True, slots=True)
class Selection:
    """The file to grade and its siblings, or the problem that stopped the choice."""

    graded: SubmittedFile | None
    siblings: tuple[SubmittedFile, ...] = ()
    #: why this file, in words the report shows
    reason: str = ""
    #: empty when a file was chosen
    problem: str = ""
    #: files handed in that are neither graded nor siblings (other notebooks, files with odd names)
    left_out: tuple[str, ...] = ()
    #: how many .py files and notebooks there were to choose from
    choices: int = 0


@dataclass(frozen=True, slots=True)
class Target:
    """What the files are graded as; empty ids: each file names its own exercise."""

    exercise_ids: tuple[str, ...] = ()
    assignment: str | None = None
    #: every name the exercises ask for
    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, exercises: Sequence[Exercise], assignment: str | None = None) -> Target:
        names: list[str] = []
        for exercise in exercises:
            names += [name for name, _ in exercise.defines]
        return cls(tuple(e.id for e in exercises), assignment, tuple(dict.fromkeys(names)))


def files_in(folder: Path) -> list[SubmittedFile]:
    """The files under `folder` (any kind), by relative path; dotfiles and tool debris left out.

    Bounded: at most MAX_DEPTH folders down and MAX_ENTRIES entries looked at (a folder of a
    million files costs no more), links never followed (a linked folder's files may lie anywhere),
    and names of any bytes kept as the path while shown as text (grader.core.text.file_name).
    """
    found: list[SubmittedFile] = []
    pending = [(folder, 0)]
    seen = 0
    while pending and seen < MAX_ENTRIES:
        here, depth = pending.pop()
        try:
            with os.scandir(here) as listing:
                entries = sorted(
                    (e for _, e in zip(range(MAX_ENTRIES - seen), listing, strict=False)),
                    key=lambda e: e.name,
                )
        except OSError:
            continue
        seen += len(entries)
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _JUNK_PARTS:
                continue
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        pending.append((Path(entry.path), depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    found.append(SubmittedFile(file_name(entry.name), Path(entry.path)))
            except OSError:
                continue
    return sorted(found, key=lambda f: f.path.parts)


def digest(files: Iterable[SubmittedFile]) -> str:
    """The content hash of what a student handed in: a lone
    file's own sha256, else one over names and contents.

    A file is hashed up to the largest size the grader reads
    (and its size beyond), so a huge one costs no more.
    """
    return hashlib.sha256(digest_content(files)).hexdigest()


def digest_content(files: Iterable[SubmittedFile]) -> bytes:
    """The bytes `digest` hashes: a lone file's own bytes, else a line `name
    NUL sha256` per file; what a submission's seed is drawn from
    (grader.core.seeds.submission_seed), so its token is the digest's start."""
    gradable = sorted(
        (f for f in files if f.path.suffix in SUFFIXES), key=lambda f: (f.name, str(f.path))
    )
    contents: list[tuple[str, bytes | str]] = []
    for file in gradable:
        try:
            contents.append((file.name, _content(file.path)))
        except OSError:
            contents.append((file.name, "unreadable"))
    if len(contents) == 1 and isinstance(contents[0][1], bytes):
        return contents[0][1]
    return "".join(
        f"{name}\0{hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else data}\n"
        for name, data in contents
    ).encode()


def _content(path: Path) -> bytes | str:
    """A file's bytes, or, past the largest size the grader reads, a digest of that much
    and the size (a FIFO or a device named like a submission is 'not a file', never read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a file"
        chunks, left = [], MAX_NOTEBOOK_BYTES + 1
        while left > 0 and (chunk := os.read(fd, min(1 << 20, left))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if left > 0 else f"{hashlib.sha256(data).hexdigest()}+{info.st_size}"
    finally:
        os.close(fd)


def select(files: Sequence[SubmittedFile], target: Target) -> Selection:
    """The file that answers `target` among `files`,
    with its siblings; or why none could be chosen."""
    gradable = [f for f in files if f.path.suffix in SUFFIXES]
    if not gradable:
        held = f" (it holds {', '.join(sorted(f.name for f in files)[:5])})" if files else ""
        return Selection(None, problem=f"No .py file or notebook was handed in{held}.")
    if len(gradable) > MAX_FILES:
        return Selection(
            None,
            problem=f"{len(gradable)} .py files and notebooks were handed in; the grader "
            f"looks at most at {MAX_FILES}. Hand in the answer and what it imports.",
        )
    if len(gradable) == 1:
        return _chosen(gradable[0], gradable, "the only .py file or notebook handed in")
    candidates = [_candidate(f) for f in gradable]
    declaring = [c for c in candidates if _answers(c, target)]
    if len(declaring) == 1:
        kind = (
            "notebook metadata"
            if declaring[0].file.path.suffix == ".ipynb"
            else "'# exercise:' line"
        )
        return _chosen(
            declaring[0].file, gradable, f"its {kind} names {', '.join(declaring[0].declared)}"
        )
    if len(declaring) > 1:
        return Selection(
            None,
            problem=_ambiguous(
                f"{len(declaring)} files say they answer it", declaring, candidates, target
            ),
        )
    if not target.names:
        return Selection(
            None,
            problem=_ambiguous(
                "none of them says which exercise it answers", [], candidates, target
            ),
        )
    defining = [c for c in candidates if set(target.names) <= set(c.defines)]
    if len(defining) == 1:
        return _chosen(
            defining[0].file, gradable, f"the only file that defines {_names(target.names)}"
        )
    lead = (
        f"{len(defining)} files define {_names(target.names)}"
        if defining
        else f"no file defines {_names(target.names)}"
    )
    return Selection(None, problem=_ambiguous(lead, defining, candidates, target))


def load_selected(selection: Selection, files: Sequence[SubmittedFile] = ()) -> Submission:
    """The graded file read as a submission, with its siblings and a note naming what was graded.

    `files`: everything the student handed in, for the content hash; the hash then changes
    when any of their .py files or notebooks does, which is what --resume compares.
    """
    if selection.graded is None:
        raise GraderError(selection.problem)
    graded = selection.graded
    submission = load_submission(graded.path)
    siblings = tuple(_sibling(f) for f in selection.siblings)
    notes = submission.notes
    if selection.choices > 1:
        beside = (
            f"; importable beside it: {', '.join(s.label for s in siblings)}" if siblings else ""
        )
        left = f"; not graded: {', '.join(selection.left_out)}" if selection.left_out else ""
        notes = (f"Graded {graded.name} ({selection.reason}){beside}{left}.", *notes)
    everything = list(files) or [graded, *selection.siblings]
    return dataclasses.replace(
        submission, name=graded.name, siblings=siblings, notes=notes, sha256=digest(everything)
    )


def _chosen(graded: SubmittedFile, gradable: Sequence[SubmittedFile], reason: str) -> Selection:
    siblings = tuple(
        f
        for f in gradable
        if f is not graded
        and f.path.parent == graded.path.parent
        and f.path.suffix == ".py"
        and _MODULE.fullmatch(f.name)
    )
    names = [s.name for s in siblings]
    if len(set(names)) != len(names) or graded.name in names:
        clash = sorted({n for n in names if names.count(n) > 1 or n == graded.name})
        return Selection(
            None,
            problem=f"Several files handed in are named {', '.join(clash)}; keep one of each "
            f"name, so that imports find the right one.",
        )
    left_out = tuple(f.name for f in gradable if f is not graded and f not in siblings)
    return Selection(graded, siblings, reason, left_out=left_out, choices=len(gradable))


def _candidate(file: SubmittedFile) -> Candidate:
    try:
        submission = load_submission(file.path)
    except GraderError as exc:
        return Candidate(file, (), (), _short(str(exc), file))
    declared = tuple(d for d in (submission.declared_exercise, submission.declared_assignment) if d)
    names: dict[str, None] = {}
    unparsed = 0
    for cell in submission.cells:
        tree = syntax_tree(cell.source)
        if tree is None:
            unparsed += 1
            continue
        names.update(dict.fromkeys(_top_level_names(tree.body)))
    problem = ""
    if unparsed and not names:
        problem = (
            "does not parse as Python"
            if submission.kind == "python"
            else "no cell parses as Python"
        )
    return Candidate(file, declared, tuple(names), problem)


def _top_level_names(body: Sequence[ast.stmt]) -> Iterable[str]:
    """Names bound by top-level statements, looking
    inside top-level `if`, `try` and `with` blocks."""
    for node in body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            yield node.target.id
        elif isinstance(node, ast.If | ast.With | ast.AsyncWith):
            yield from _top_level_names(node.body)
            yield from _top_level_names(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try | ast.TryStar):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _top_level_names(block)


def _answers(candidate: Candidate, target: Target) -> bool:
    if not candidate.declared:
        return False
    if not target.exercise_ids:
        return True  # each file names its own exercise: one that names any answers
    return any(d in target.exercise_ids or d == target.assignment for d in candidate.declared)


def _ambiguous(
    lead: str, matching: Sequence[Candidate], candidates: Sequence[Candidate], target: Target
) -> str:
    what = f"exercise {', '.join(target.exercise_ids)}" if target.exercise_ids else "an exercise"
    if target.assignment:
        what = f"assignment {target.assignment}"
    listed = "; ".join(c.describe() for c in candidates)
    fix = (
        f"Put the line '# exercise: {target.exercise_ids[0]}' at the top of the file to grade"
        if len(target.exercise_ids) == 1
        else "Name the exercise at the top of the file to grade "
        "('# exercise: ID', or the notebook's metadata)"
    )
    keep = (
        ", or hand in only that file and the modules it imports" if matching or target.names else ""
    )
    return (
        f"The grader could not tell which file to grade as {what}: {lead}. "
        f"The files: {listed}. {fix}{keep}."
    )


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _short(message: str, file: SubmittedFile) -> str:
    """A load error without the path the student never saw (the message starts with it)."""
    for prefix in (f"{file.path}: ", f"{file.path}, "):
        if message.startswith(prefix):
            return message[len(prefix) :].rstrip(".")
    return message.rstrip(".")


def _sibling(file: SubmittedFile) -> SourceCell:
    try:
        data = read_capped(file.path, MAX_SOURCE_BYTES)
    except GraderError as exc:
        raise GraderError(
            f"{file.name}: {_short(str(exc), file)}; it is handed in beside the graded file."
        ) from None
    try:
        return SourceCell(file.name, data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise GraderError(f"{file.name}: not UTF-8 text; save the file as UTF-8.") from None
