"""Find the exercises folder and the exercises in it, by id."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.core.errors import GraderError, SpecError
from grader.core.exercise import COURSE_SETTINGS, Assignment, Exercise
from grader.core.library import Library
from grader.judge.spec import load_assignment, load_exercise
from grader.judge.spec_course import course_library

ENV_VAR = "AUTOGRADER_EXERCISES"
SPEC_NAME = "exercise.yaml"
ASSIGNMENTS = "assignments"  # exercises/assignments/<id>.yaml


class Catalog:
    """The exercises under one folder: `<root>/<id>/exercise.yaml`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._loaded: dict[str, Exercise] = {}  # a batch loads each exercise once, not once per student

    @classmethod
    def find(cls, explicit: Path | None = None) -> Catalog:
        """`explicit`, else $AUTOGRADER_EXERCISES, else ./exercises, else the one beside this package."""
        candidates: list[tuple[str, Path]] = []
        if explicit is not None:
            candidates.append(("--exercises", explicit))
        elif os.environ.get(ENV_VAR):
            candidates.append((f"${ENV_VAR}", Path(os.environ[ENV_VAR])))
        else:
            candidates.append(("the current folder", Path("exercises")))
            candidates.append(("beside the grader's checkout", Path(__file__).resolve().parents[2] / "exercises"))
        for _, path in candidates:
            if path.is_dir():
                return cls(path)
        tried = "; ".join(f"{path} ({origin})" for origin, path in candidates)
        raise GraderError(f"no exercises folder found (tried {tried}). Run grade inside the pack your course "
                          f"handed out (it holds an exercises folder), or pass --exercises DIR or set ${ENV_VAR}.")

    def library(self) -> Library | None:
        """A library course's package settings (its course.yaml's `package`): it grades whole repositories."""
        return course_library(self.root / COURSE_SETTINGS)

    def ids(self) -> list[str]:
        return sorted(self._specs())

    def _specs(self) -> dict[str, Path]:
        """Each exercise the folder lists, by id, with its spec: the only paths a spec is read from.

        An id a submission (or anyone) names is looked up here as a plain string, never joined to a
        path, so `../x`, `/abs`, `a/b`, `%2e%2e`, a fullwidth solidus or a NUL byte is just an unknown id.
        A folder or spec that is a link leading out of the exercises folder is not listed.
        """
        return _listed(self.root, lambda entry: Path(entry.path) / SPEC_NAME, directories=True)

    def load(self, exercise_id: str) -> Exercise:
        if exercise_id not in self._loaded:
            self._loaded[exercise_id] = self._load(exercise_id)
        return self._loaded[exercise_id]

    def _load(self, exercise_id: str) -> Exercise:
        specs = self._specs()
        spec = specs.get(exercise_id) if isinstance(exercise_id, str) else None
        if spec is None:
            raise UnknownExercise(f"unknown exercise {shown_id(exercise_id)}: the exercises folder {self.root} has "
                                  f"none of that name.{_near(exercise_id, specs)}")
        return load_exercise(spec)

    def load_all(self) -> list[Exercise]:
        return [self.load(exercise_id) for exercise_id in self.ids()]

    def declared(self, exercise_id: str | None, assignment_id: str | None, where: str) -> list[Exercise] | None:
        """The exercises a submission names (`where` says how: "its '# exercise:' line"), or None if it names none.

        The id is the submission's own text: one this folder does not list is that submission's problem,
        said in words for its author (with the ids it may use, not the grader's paths).
        """
        kind, ident = ("exercise", exercise_id) if exercise_id is not None else ("assignment", assignment_id)
        if ident is None:
            return None
        listed = self._specs() if kind == "exercise" else self._assignments()
        if ident not in listed:
            known = sorted(listed)
            few = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
            raise UnknownExercise(f"{where} names {kind} {shown_id(ident)}, which is not one of this course's "
                                  f"{kind}s ({few or 'none'}). Name one of them.")
        return [self.load(ident)] if kind == "exercise" else self.load_assignment(ident)[1]

    def assignment_ids(self) -> list[str]:
        return sorted(self._assignments())

    def _assignments(self) -> dict[str, Path]:
        folder = self.root / ASSIGNMENTS
        return {name[:-len(".yaml")]: path for name, path in
                _listed(folder, lambda entry: Path(entry.path), directories=False, root=self.root).items()
                if name.endswith(".yaml")}

    def load_assignment(self, assignment_id: str) -> tuple[Assignment, list[Exercise]]:
        """The assignment and its exercises; names two of them both define would clash in one notebook."""
        listed = self._assignments()
        path = listed.get(assignment_id) if isinstance(assignment_id, str) else None
        if path is None:
            close = _near(assignment_id, listed)
            hint = close or f" The assignments: {', '.join(sorted(listed)) or 'none'}."
            raise UnknownExercise(f"unknown assignment {shown_id(assignment_id)}: {self.root / ASSIGNMENTS} has none "
                                  f"of that name.{hint}")
        assignment = load_assignment(path)
        exercises = []
        specs = self._specs()
        for exercise_id in assignment.exercise_ids:
            if exercise_id not in specs:
                raise SpecError(f"{path}: exercises: {exercise_id!r} is not an exercise in {self.root}.")
            exercises.append(self.load(exercise_id))
        shared = shared_name(exercises)
        if shared is not None:
            raise SpecError(f"{path}: exercises: {shared[1]} and {shared[2]} both need `{shared[0]}`; "
                            f"one notebook cannot answer both.")
        return assignment, exercises


def shared_name(exercises: Sequence[Exercise]) -> tuple[str, str, str] | None:
    """The first name two of `exercises` both need defined, with the two (name, first, second): one file, or one
    notebook, cannot answer both. A library course's names are its package's, one object each whichever exercise
    asks: one repository answers them all."""
    owners: dict[str, str] = {}
    for exercise in exercises:
        if exercise.library is not None:
            continue
        for name, _ in exercise.defines:
            if name in owners:
                return name, owners[name], exercise.id
            owners[name] = exercise.id
    return None


class UnknownExercise(GraderError):
    """An id that is not one the course's exercises folder lists; in a submission, that student's problem."""


#: an id as the exercises folder may spell it (`grade new` makes no other); anything else is not listed
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def _listed(folder: Path, spec_of: Callable[[os.DirEntry[str]], Path], *, directories: bool,
            root: Path | None = None) -> dict[str, Path]:
    """The entries of `folder` named like ids, whose spec (`spec_of(entry)`) is a file inside `root`."""
    try:
        base = (root or folder).resolve()
        entries = list(os.scandir(folder))
    except OSError:
        return {}
    found = {}
    for entry in entries:
        if not _ID.fullmatch(entry.name) or ".." in entry.name:
            continue
        try:
            if entry.is_dir() != directories:
                continue
            spec = spec_of(entry)
            if spec.is_file() and spec.resolve().is_relative_to(base):
                found[entry.name] = spec
        except (OSError, RuntimeError):  # a link loop, a permission: not an exercise
            continue
    return found


def shown_id(ident: object) -> str:
    """An id someone wrote, quoted for a message: escaped and cut short, whatever it holds."""
    if not isinstance(ident, str):
        return f"<{type(ident).__name__}>"
    return repr(ident) if len(ident) <= 60 else f"{repr(ident[:40])[:-1]}...' ({len(ident)} characters)"


def _near(ident: object, listed: dict[str, Path]) -> str:
    if not isinstance(ident, str) or len(ident) > 100:  # difflib's cost grows with the length: not for a wall of text
        return " Run `grade list` to see them."
    close = difflib.get_close_matches(ident, list(listed), n=3)
    return f" Did you mean {' or '.join(close)}?" if close else " Run `grade list` to see them."
