"""A course's settings, beside its exercise folders (course.yaml): what every exercise of the folder may import,
and a library course's package (grader.core.library)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.core.exercise import COURSE_SETTINGS
from grader.core.library import Graph, Library, last_name
from grader.judge.spec_yaml import At, Where, check_schema, parse_yaml, read_spec


def course_imports(path: Path) -> tuple[str, ...]:
    """What a course's course.yaml lets every engine exercise import (numpy, where its lectures use it)."""
    if not path.is_file():
        return ()
    data, lines = parse_yaml(read_spec(path, "A course's settings are a file course.yaml beside its exercises."),
                             path)
    check_schema(data, lines, path, "course")
    return tuple((data or {}).get("source", {}).get("allow_imports", ()))


def library_settings(data: dict[str, Any], course: Path, where: Where) -> Library | None:
    """A library exercise's package settings, from its course's course.yaml; other engines have none."""
    if data["engine"] != "library":
        for field in ("grades",):
            if field in data:
                raise where.error((field,), "is for engine: library exercises.")
        return None
    library = course_library(course / COURSE_SETTINGS)
    if library is None:
        raise where.error(("engine",), f"is library, but {course / COURSE_SETTINGS} has no 'package' section "
                                       f"saying which files a repository hands in (see docs/authoring.md).")
    graded: list[tuple[At, str]] = [(("grades", i), dotted) for i, dotted in enumerate(data.get("grades", ()))]
    for p, probe in enumerate(data["probes"]):
        graded += [(("probes", p, "grades", i), dotted) for i, dotted in enumerate(probe.get("grades", ()))]
    for at, dotted in graded:
        if dotted not in data["defines"]:
            raise where.error(at, f"{dotted!r} is not in 'defines'; an exercise grades what it asks for.")
    short: dict[str, str] = {}
    for dotted in data["defines"]:
        name = last_name(dotted)
        if name in short:
            raise where.error(("defines", dotted), f"is known to the probes as {name}, as {short[name]} is; "
                                                   f"each name a probe uses must be one object.")
        short[name] = dotted
    return library


def course_library(path: Path) -> Library | None:
    """A library course's package settings (course.yaml's `package`), or None for any other course."""
    if not path.is_file():
        return None
    data, lines = parse_yaml(read_spec(path, "A course's settings are a file course.yaml beside its exercises."),
                             path)
    check_schema(data, lines, path, "course")
    package = (data or {}).get("package")
    if package is None:
        return None
    where = Where(path, lines)
    folders = {}
    for key in ("reference", "starter"):
        if key in package:
            folder = (path.parent / package[key]).resolve()
            if not folder.is_dir() and key == "starter":
                raise where.error(("package", key), f"folder {folder} does not exist.")
            folders[key] = folder
    graph = package.get("graph")
    given = tuple(package.get("given", ()))
    for index, rel in enumerate(given):
        if "starter" not in folders or not (folders["starter"] / rel).is_file():
            raise where.error(("package", "given", index), "is not a file of the starter; a given file is the "
                                                            "course's own, handed out with the starter.")
    return Library(files=tuple(package["files"]), import_paths=tuple(package.get("import_paths", ["."])),
                   reference=folders.get("reference"), starter=folders.get("starter"),
                   graph=Graph(**graph) if graph is not None else None, given=given)
