"""Find the exercises folder and the exercises in it, by id."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from grader.core.errors import GraderError, SpecError
from grader.core.exercise import Assignment, Exercise
from grader.judge.spec import load_assignment, load_exercise

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

    def ids(self) -> list[str]:
        return sorted(p.parent.name for p in self.root.glob(f"*/{SPEC_NAME}"))

    def load(self, exercise_id: str) -> Exercise:
        if exercise_id not in self._loaded:
            self._loaded[exercise_id] = self._load(exercise_id)
        return self._loaded[exercise_id]

    def _load(self, exercise_id: str) -> Exercise:
        spec = self.root / exercise_id / SPEC_NAME
        if not spec.is_file():
            close = difflib.get_close_matches(exercise_id, self.ids(), n=3)
            hint = f" Did you mean {' or '.join(close)}?" if close else " Run `grade list` to see them."
            raise GraderError(f"unknown exercise {exercise_id!r} (no {spec}).{hint}")
        return load_exercise(spec)

    def load_all(self) -> list[Exercise]:
        return [self.load(exercise_id) for exercise_id in self.ids()]

    def assignment_ids(self) -> list[str]:
        return sorted(p.stem for p in (self.root / ASSIGNMENTS).glob("*.yaml"))

    def load_assignment(self, assignment_id: str) -> tuple[Assignment, list[Exercise]]:
        """The assignment and its exercises; names two of them both define would clash in one notebook."""
        path = self.root / ASSIGNMENTS / f"{assignment_id}.yaml"
        if not path.is_file():
            close = difflib.get_close_matches(assignment_id, self.assignment_ids(), n=3)
            hint = f" Did you mean {' or '.join(close)}?" if close else \
                f" The assignments: {', '.join(self.assignment_ids()) or 'none'}."
            raise GraderError(f"unknown assignment {assignment_id!r} (no {path}).{hint}")
        assignment = load_assignment(path)
        exercises = []
        owners: dict[str, str] = {}
        for exercise_id in assignment.exercise_ids:
            if not (self.root / exercise_id / SPEC_NAME).is_file():
                raise SpecError(f"{path}: exercises: {exercise_id!r} is not an exercise in {self.root}.")
            exercise = self.load(exercise_id)
            for name, _ in exercise.defines:
                if name in owners:
                    raise SpecError(f"{path}: exercises: {owners[name]} and {exercise_id} both need `{name}`; "
                                    f"one notebook cannot answer both.")
                owners[name] = exercise_id
            exercises.append(exercise)
        return assignment, exercises
