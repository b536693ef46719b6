"""`grade new`: a new exercise folder to fill in, from a
template or an existing exercise; and what is left to fill.

Every place the author still has to write is marked `TODO(grade new)`;
`grade validate` lists the marks left (`todos`) beside what it proves, so
that an exercise is sound once the marks are gone and validate passes.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from string import Template
from typing import Literal

from grader.core.errors import GraderError
from grader.core.exercise import ID_PATTERN, Exercise

MARK = "TODO(grade new)"
TEMPLATE_FILES = ("exercise.yaml", "starter.py", "solution.py")
Engine = Literal["scalar", "torch"]


def new_exercise(
    root: Path, exercise_id: str, engine: Engine = "scalar", like: Exercise | None = None
) -> list[Path]:
    """Write `root/exercise_id/` (spec, starter, solution,
    one example mutant and variant); the files written."""
    if not re.fullmatch(ID_PATTERN, exercise_id):
        raise GraderError(
            f"{exercise_id!r} cannot be an exercise id: use lower-case letters, digits and '-' "
            f"(node-div, value-tanh)."
        )
    folder = root / exercise_id
    if folder.exists():
        raise GraderError(f"{folder} exists already; choose another id, or edit that exercise.")
    (folder / "mutants").mkdir(parents=True)
    (folder / "variants").mkdir()
    if like is not None:
        return _copy(like, folder, exercise_id)
    templates = resources.files("grader").joinpath(f"templates/{engine}")
    written = []
    for name, target in (
        *((n, n) for n in TEMPLATE_FILES),
        ("mutant.py", "mutants/example.py"),
        ("variant.py", "variants/example.py"),
    ):
        text = Template(templates.joinpath(f"{name}.tmpl").read_text(encoding="utf-8")).substitute(
            id=exercise_id
        )
        path = folder / target
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _copy(like: Exercise, folder: Path, exercise_id: str) -> list[Path]:
    """The existing exercise's spec, starter, solution, every
    mutant and variant, renamed, with marks where to start."""
    header = re.compile(rf"^# exercise: {re.escape(like.id)}$", re.M)
    spec = like.spec_path.read_text(encoding="utf-8")
    spec = re.sub(rf"^id: {re.escape(like.id)}$", f"id: {exercise_id}", spec, count=1, flags=re.M)
    spec = (
        f"# {MARK}: this is {like.id}'s spec; write this exercise's title, summary and probes, "
        f"then delete this line.\n{spec}"
    )
    written = [_write(folder / "exercise.yaml", spec)]
    for source, target in ((like.starter, "starter.py"), (like.solution, "solution.py")):
        if source is None:
            raise GraderError(
                f"{like.id} has no solution (a released pack?); --like needs a course's own "
                "exercise."
            )
        text = header.sub(f"# exercise: {exercise_id}", source.read_text(encoding="utf-8"), count=1)
        written.append(
            _write(
                folder / target,
                f"{text.rstrip()}\n# {MARK}: {like.id}'s {target}; make it this "
                f"exercise's, then delete this line.\n",
            )
        )
    for mutant in like.mutants:  # every one: each is a mistake the new exercise may share
        text = header.sub(
            f"# exercise: {exercise_id}", mutant.path.read_text(encoding="utf-8"), count=1
        )
        written.append(
            _write(
                folder / "mutants" / mutant.path.name,
                f"{text.rstrip()}\n# {MARK}: {like.id}'s mutant {mutant.mistake}; make it a "
                "mistake of this exercise, then delete this line.\n",
            )
        )
    # each is a correct answer of the other exercise: one of this one's, once edited
    for variant in like.variants:
        text = header.sub(
            f"# exercise: {exercise_id}", variant.read_text(encoding="utf-8"), count=1
        )
        written.append(
            _write(
                folder / "variants" / variant.name,
                f"{text.rstrip()}\n# {MARK}: {like.id}'s variant {variant.name}; make it a correct "
                f"answer of this exercise written another way, then delete this line.\n",
            )
        )
    return written


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def todos(exercise: Exercise) -> list[str]:
    """'file, line N: what to do' for each `TODO(grade new)` mark left in the exercise's files."""
    files = [
        exercise.spec_path,
        exercise.starter,
        *([exercise.solution] if exercise.solution else []),
        *(m.path for m in exercise.mutants),
        *exercise.variants,
    ]
    found = []
    for path in files:
        if path.is_dir():  # a library course's repositories: grade new writes no marks there
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if MARK in line:
                what = line.split(MARK, 1)[1].lstrip(": ").strip()
                found.append(f"{path}, line {number}: {what}")
    return found
