"""What a library course's pack holds beside its exercises: the starter repository
at the pack's top, where the student fills it in and checks it with `grade .`, a
copy of it that stays the course's own (its given files stand in for the
student's), and the course's settings without its reference, which stays behind."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from grader.core.errors import GraderError
from grader.core.exercise import COURSE_SETTINGS
from grader.core.library import Library
from grader.judge.spec_yaml import Loader

#: the course's copy of the starter, beside the exercises
STARTER = "starter"


def release_library(settings: Path, library: Library, out: Path) -> list[Path]:
    """Write the starter twice (the student's and the
    course's) and the pack's course.yaml; list the files."""
    if library.starter is None:
        raise GraderError(
            f"{settings}: a library course's pack carries its starter repository; name it in "
            f"'package: starter'."
        )
    written = _copy_tree(library.starter, out)
    written += _copy_tree(library.starter, out / "exercises" / STARTER)
    data: dict[str, Any] = yaml.load(settings.read_text(encoding="utf-8"), Loader=Loader)
    package = dict(data["package"])
    # the solution stays behind: the pack carries expected values instead
    package.pop("reference", None)
    package["starter"] = STARTER
    data["package"] = package
    target = out / "exercises" / COURSE_SETTINGS
    target.write_text(
        "# Released by `grade release`: the course's settings, without its reference.\n"
        + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100),
        encoding="utf-8",
    )
    return [*written, target]


def _copy_tree(source: Path, target: Path) -> list[Path]:
    """The starter's files (no tools' debris, no links) under
    `target`, an existing file of the same name replaced."""
    written = []
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if (
            path.is_symlink()
            or not path.is_file()
            or "__pycache__" in rel.parts
            or rel.suffix == ".pyc"
        ):
            continue
        out = target / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
        written.append(out)
    return written
