"""Write the pack a course hands out: starters as .py and .ipynb, public checks only, no solutions.

    OUT/<id>.py, OUT/<id>.ipynb          each exercise's starter, as a file and as a notebook
    OUT/<assignment>.ipynb               one notebook per assignment, a section per exercise
    OUT/exercises/<id>/exercise.yaml     the public probes, so that students can run `grade`
                                         themselves
    OUT/exercises/<id>/starter.py
    OUT/exercises/<id>/expected.json     torch and library exercises: the expected values at
                                         the default seed
    OUT/python/..., OUT/minitorch/...    a library course: the starter repository, which the
                                         student fills in
    OUT/exercises/starter/...            ... and the course's own copy of it (its given files)
    OUT/exercises/<id>/mistakes.json     the known mistakes' names, hints and values on the
                                         public probes
    OUT/exercises/assignments/<id>.yaml
    OUT/exercises/pack.json              which version of each exercise it holds (pack.fingerprint)
    OUT/README.md                        for students: install, check, what hidden checks and
                                         time limits mean
    OUT/wheels/autograd_grader-V-py3-none-any.whl   the grader itself, installed from here

Solutions, mutants and hidden probes stay behind. A torch exercise's oracle is
its solution (a library course's, its reference repository), so the pack carries
that oracle's answers for the default seed instead; and so that a student's
grade names the same mistakes as the instructor's, it carries what each mutant
gave at that seed, never its code (grader.judge.diagnose.released_mistakes).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from grader.core.errors import GraderError
from grader.core.exercise import COURSE_OPS, COURSE_SETTINGS, Assignment, Exercise
from grader.course.pack.course_file import is_http_address, write_course_file
from grader.course.pack.fingerprint import write_fingerprints
from grader.course.pack.library_pack import release_library
from grader.course.pack.markdown import code_dunders
from grader.course.pack.readme import Submitted, write_readme
from grader.course.pack.wheel import WHEELS, grader_wheel
from grader.judge.catalog import ASSIGNMENTS, SPEC_NAME, Catalog
from grader.judge.diagnose import released_mistakes
from grader.judge.mistake_runs import MutantCache, mistake_runs
from grader.judge.oracle import expected_to_data, expected_values
from grader.judge.spec_yaml import Loader
from grader.run.inputs import draw_inputs
from grader.run.read.notebook import METADATA_KEY
from grader.run.sandbox import Group, Sandbox, policy_of

PACK_SEED = 0
_HEADER = re.compile(r"^#\s*exercise:.*\n", re.MULTILINE)


def release(
    catalog: Catalog,
    out: Path,
    exercise_ids: Sequence[str],
    assignment_ids: Sequence[str],
    server: str | None = None,
    *,
    mutant_cache: MutantCache | None = None,
    submitted: Sequence[Submitted] = (),
) -> list[Path]:
    """Write the pack for these exercises and assignments
    (and the exercises they include); list the files.

    `server`: the course server's address, written to the pack's grade-course.toml
    for `grade submit`. `submitted`: its course's assignments (course.toml's),
    which the README's `grade submit` lines name. `mutant_cache`: the mutants'
    runs by exercise and seed, shared with grading in the same process.
    """
    if server is not None and not is_http_address(server):
        raise GraderError(
            f"--server {server!r} is not an http(s) address, so grade submit could not use it. "
            "Give the address students reach the course server at, e.g. "
            "https://grader.example.edu."
        )
    assignments = [catalog.load_assignment(a) for a in assignment_ids]
    exercises = {e.id: e for e in [catalog.load(i) for i in exercise_ids]}
    for _, members in assignments:
        exercises.update({e.id: e for e in members})
    out.mkdir(parents=True, exist_ok=True)
    written = _pack_exercises(catalog, list(exercises.values()), out, mutant_cache)
    written += _course_files(list(exercises.values()), out)
    written += _assignment_files(assignments, out)
    # which version of each exercise the pack holds, so that the server can say when it is stale
    folders = {e.id: e.folder for e in exercises.values()}
    written.append(write_fingerprints(out / "exercises", folders))
    wheel = grader_wheel(out / WHEELS)  # the grader itself: no index has it (pack.wheel)
    written.append(wheel)
    written.append(
        write_readme(
            out,
            list(exercises.values()),
            [a for a, _ in assignments],
            server,
            submitted,
            wheel=f"{WHEELS}/{wheel.name}",
        )
    )
    if server is not None:
        written.append(write_course_file(out, server))
    return written


def _pack_exercises(
    catalog: Catalog, exercises: Sequence[Exercise], out: Path, mutant_cache: MutantCache | None
) -> list[Path]:
    """Each exercise's starter files and its public part of the pack.

    Importing torch takes seconds, in a torch exercise's zygote and here for its expected
    values: the zygote warms up from the start, and the expected values are computed in a thread
    of their own while the known mistakes run in the sandbox (grade release of two exercises
    took 25 s, each step after the other).
    """
    written: list[Path] = []
    torch = next((e for e in exercises if e.uses_torch), None)
    first = policy_of(torch) if torch is not None else None
    with (
        ThreadPoolExecutor(max_workers=1) as pool,
        Sandbox(lean=True, hide=[catalog.root], first=first) as sandbox,
    ):
        # a torch exercise's oracle is its solution, a library's the course's reference: neither
        # is in the pack
        expected = {}
        for exercise in exercises:
            if exercise.engine in ("torch", "library"):
                expected[exercise.id] = pool.submit(_expected_data, exercise)
        # the others' while torch loads
        for exercise in sorted(exercises, key=lambda e: e.uses_torch):
            if exercise.library is None:
                written += _exercise_files(exercise, out)
            written += _pack_exercise(
                exercise,
                out / "exercises" / exercise.id,
                sandbox,
                mutant_cache,
                expected.get(exercise.id),
            )
    return written


def _course_files(exercises: Sequence[Exercise], out: Path) -> list[Path]:
    """The course's own files the exercises need: its added operations, its settings (a
    library course's, without its reference)."""
    written = []
    packed = out / "exercises"
    for exercise in exercises:
        if exercise.course_ops is not None and not (packed / COURSE_OPS).exists():
            # the reference engine computes a scalar pack's expected values, with the course's
            # operations
            ops = packed / COURSE_OPS
            ops.write_text(exercise.course_ops.read_text(encoding="utf-8"), encoding="utf-8")
            written.append(ops)
        settings = exercise.folder.parent / COURSE_SETTINGS
        if exercise.library is not None and not (packed / COURSE_SETTINGS).exists():
            written += release_library(settings, exercise.library, out)
        # what the course allows
        elif settings.is_file() and not (packed / COURSE_SETTINGS).exists():
            text = settings.read_text(encoding="utf-8")
            (packed / COURSE_SETTINGS).write_text(text, encoding="utf-8")
            written.append(packed / COURSE_SETTINGS)
    return written


def _assignment_files(
    assignments: Sequence[tuple[Assignment, list[Exercise]]], out: Path
) -> list[Path]:
    """Each assignment's notebook, and its file among the pack's exercises."""
    written = []
    for assignment, members in assignments:
        cells = _assignment_cells(assignment, members)
        notebook = out / f"{assignment.id}.ipynb"
        written.append(_write_notebook(notebook, cells, {"assignment": assignment.id}))
        pack = out / "exercises" / ASSIGNMENTS / f"{assignment.id}.yaml"
        pack.parent.mkdir(parents=True, exist_ok=True)
        pack.write_text(assignment.path.read_text(encoding="utf-8"), encoding="utf-8")
        written.append(pack)
    return written


def _exercise_files(exercise: Exercise, out: Path) -> list[Path]:
    starter = exercise.starter.read_text(encoding="utf-8")
    py = out / f"{exercise.id}.py"
    py.write_text(with_advice(starter, py.name), encoding="utf-8")
    cells = [
        ("markdown", _task(exercise, level=1)),
        ("code", _HEADER.sub("", starter, count=1).strip()),
    ]
    return [py, _write_notebook(out / f"{exercise.id}.ipynb", cells, {"exercise": exercise.id})]


def with_advice(starter: str, name: str) -> str:
    """The starter telling its student how to check it, by the name it is released under:
    written here, not in the starter, so that the advice cannot name a file that does not exist."""
    advice = f"Check your work with:\n\n    grade {name}\n"
    lines = starter.splitlines(keepends=True)
    try:
        body = ast.parse(starter).body
    except SyntaxError:
        body = []
    docstring = (
        body[0]
        if body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
        else None
    )
    if (
        docstring is not None
        and docstring.end_lineno is not None
        and lines[docstring.end_lineno - 1].strip() in ('"""', "'''")
    ):
        end = docstring.end_lineno - 1  # the line that closes the docstring
        return "".join([*lines[:end], "\n", advice, *lines[end:]])
    # no docstring to extend: a comment under the header line
    at = 1 if lines and _HEADER.match(lines[0]) else 0
    return "".join(
        [*lines[:at], *[f"# {line}".rstrip() + "\n" for line in advice.splitlines()], *lines[at:]]
    )


def _assignment_cells(assignment: Assignment, members: list[Exercise]) -> list[tuple[str, str]]:
    intro = code_dunders(f"# {assignment.title}\n\n{assignment.summary}".strip())
    intro += (
        f"\n\nCheck your work at any time with `grade {assignment.id}.ipynb`, or in a cell of this "
        "notebook with `from grader import check` and then `check()`."
    )
    cells = [("markdown", intro)]
    for exercise in members:
        cells += [
            ("markdown", _task(exercise, level=2)),
            (
                "code",
                _HEADER.sub("", exercise.starter.read_text(encoding="utf-8"), count=1).strip(),
            ),
        ]
    return cells


def _task(exercise: Exercise, level: int) -> str:
    text = code_dunders(f"{'#' * level} {exercise.title}\n\n{exercise.summary}".strip())
    if level == 1:
        text += (
            f"\n\nCheck your work with `grade {exercise.id}.ipynb`, or in a cell of this notebook "
            f"with `from grader import check` and then `check(\"{exercise.id}\")`."
        )
    return text


def _write_notebook(path: Path, cells: list[tuple[str, str]], metadata: dict[str, str]) -> Path:
    import nbformat as nbformat_module

    nbformat: Any = nbformat_module  # untyped library
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata[METADATA_KEY] = metadata
    stem = re.sub(r"[^A-Za-z0-9-]", "-", path.stem)[:40]
    for number, (kind, source) in enumerate(cells, start=1):
        make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        cell = make(source)
        cell["id"] = f"{stem}-{number}"  # stable ids: releasing twice writes the same files
        notebook.cells.append(cell)
    nbformat.validate(notebook)
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    return path


def _pack_exercise(
    exercise: Exercise,
    folder: Path,
    sandbox: Sandbox,
    mutant_cache: MutantCache | None,
    expected: Future[dict[str, Any]] | None,
) -> list[Path]:
    """The exercise as students may grade it: public probes, no solution, no
    mutants (`expected`: a torch exercise's answers to them, on their way)."""
    folder.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = yaml.load(exercise.spec_path.read_text(encoding="utf-8"), Loader=Loader)
    data["probes"] = [p for p in data["probes"] if p.get("visibility", "public") == "public"]
    data["points"] = sum(p["points"] for p in data["probes"])
    hidden = (
        sum(p.points for p in exercise.probes if p.visibility == "hidden") + exercise.hidden_points
    )
    if hidden:
        data["hidden_points"] = hidden
    for key in ("solution", "mutants"):
        data.pop(key, None)
    written = []
    if exercise.library is None:  # a library course's starter is its repository, at the pack's top
        data["starter"] = "starter.py"
        written.append(folder / "starter.py")
        (folder / "starter.py").write_text(
            exercise.starter.read_text(encoding="utf-8"), encoding="utf-8"
        )
    public = {p["name"] for p in data["probes"]}
    if expected is not None:
        data["expected"] = "expected.json"
    mistakes: list[Path] = []
    stored = exercise.folder / released_mistakes.FILE_NAME
    # a pack released again
    if not exercise.mutants and exercise.solution is None and stored.is_file():
        (folder / released_mistakes.FILE_NAME).write_bytes(stored.read_bytes())
        mistakes.append(folder / released_mistakes.FILE_NAME)
    elif exercise.mutants:
        group = Group(exercise, draw_inputs(exercise, PACK_SEED), PACK_SEED)
        # the pack keeps what each mistake gave on the public checks: their hidden checks run
        # only where the runs are shared with grading in the same process (`mutant_cache`)
        runs = mistake_runs(
            sandbox, group, None, mutant_cache, public_only=mutant_cache is None
        ).mutants
        mistakes.append(
            released_mistakes.write(
                folder / released_mistakes.FILE_NAME,
                released_mistakes.mistakes_to_data(exercise, runs, public, PACK_SEED),
            )
        )
    if expected is not None:
        written.append(folder / "expected.json")
        written[-1].write_text(json.dumps(expected.result(), indent=1) + "\n", encoding="utf-8")
    written += mistakes
    spec = folder / SPEC_NAME
    spec.write_text(
        f"# Released by `grade release` from {exercise.id}: public checks only.\n"
        + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100),
        encoding="utf-8",
    )
    return [spec, *written]


class _Dumper(yaml.SafeDumper):
    """Writes text with line breaks as `|` blocks, as the specs are written by hand."""


_Dumper.add_representer(
    str,
    lambda dumper, text: dumper.represent_scalar(
        "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None
    ),
)


def _expected_data(exercise: Exercise) -> dict[str, Any]:
    """A torch exercise's expected.json: its solution's
    answers to the public probes at the pack's seed."""
    expected = expected_values(exercise, draw_inputs(exercise, PACK_SEED), seed=PACK_SEED)
    probes = {
        probe.name: expected_to_data(value)
        for probe, value in zip(exercise.probes, expected, strict=True)
        if probe.visibility == "public"
    }
    return {"seed": PACK_SEED, "probes": probes}
