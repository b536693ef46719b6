"""The README.md of a released pack: how students install the grader, check their work, submit
it (with `grade submit`, and where their token goes), and what hidden checks and time limits
mean, with a row per exercise (its files, the points they can check, hidden points, time limit)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.core.compare import fmt_points
from grader.core.exercise import Assignment, Exercise
from grader.core.library import Library
from grader.course.pack.course_file import COURSE_FILE

README = "README.md"


#: a course server's assignment as a pack's README names it: its id (what
#: `grade submit --assignment` takes), the exercises one uploaded file answers
#: for it, and the catalog's assignment it stands for (its notebook), if any
Submitted = tuple[str, tuple[str, ...], str | None]


def write_readme(
    out: Path,
    exercises: Sequence[Exercise],
    assignments: Sequence[Assignment],
    server: str | None = None,
    submitted: Sequence[Submitted] = (),
    *,
    wheel: str | None = None,
) -> Path:
    path = out / README
    path.write_text(
        readme(exercises, assignments, server, submitted, wheel=wheel),
        encoding="utf-8",
        newline="\n",
    )
    return path


def readme(
    exercises: Sequence[Exercise],
    assignments: Sequence[Assignment],
    server: str | None = None,
    submitted: Sequence[Submitted] = (),
    *,
    wheel: str | None = None,
) -> str:
    """`server`: the course server the pack's grade-course.toml names (None: the pack
    names none); `submitted`: its course's assignments (course.toml's, from `grade
    release --course`), for the submit lines; `wheel`: the grader's wheel in the pack,
    relative to it (None: the pack has none, and the grader comes from an index)."""
    library = next((e.library for e in exercises if e.library is not None), None)
    first = exercises[0].id if exercises else "EXERCISE"
    lines = ["# Exercises and their checks", "", _what(assignments, library), ""]
    lines += _install(exercises, wheel)
    if library is not None:
        lines += _check_library(first)
    else:
        lines += _check_files(first, assignments)
    lines += [
        "The report says which checks passed, what each ran, what was expected and what your code "
        "gave, and the mistake it most likely is. `grade` exits 0 when every check passed, 1 when "
        "points were lost.",
        "",
        *_submit(assignments, server, submitted, library is not None),
        *_exercise_table(exercises),
        *_HIDDEN_AND_TIME,
    ]
    return "\n".join(lines)


def _what(assignments: Sequence[Assignment], library: Library | None) -> str:
    """What the folder holds."""
    if library is not None:
        return (
            "This folder is what your course hands out: the repository you fill in ("
            + _globs(library)
            + "), and `exercises/`, the public checks, so that you can check your work yourself "
            "before you submit it. Work in this folder, or in your own clone of the course's "
            "repository."
        )
    return (
        "This folder is what your course hands out: each exercise's starter as a Python file "
        "(`ID.py`) and as a notebook (`ID.ipynb`)"
        + (", a notebook per assignment" if assignments else "")
        + ", and `exercises/`, the public checks, so that you can check your work yourself before "
        "you submit it."
    )


def _install(exercises: Sequence[Exercise], wheel: str | None) -> list[str]:
    """How to install torch and the grader (from the pack's wheel, where it has one)."""
    from grader import __version__
    from grader.course.pack.export import TORCH_INDEX, TORCH_PIN

    lines = ["## Install", "", "With Python 3.11 or newer (in a virtual environment if you like):"]
    lines += [
        "",
        "```sh",
        f"pip install torch=={TORCH_PIN} --index-url {TORCH_INDEX}   # the CPU build: a "
        "plain `pip install torch` downloads gigabytes of CUDA",
    ]
    if wheel is None:
        lines += [f'pip install "autograd-grader=={__version__}"', "```", ""]
    else:
        lines += [
            f"pip install ./{wheel}   # the grader, from this folder",
            "```",
            "",
            "The grader comes with this folder: the second line installs it from here, "
            "and takes only what it needs (numpy, PyYAML and a few more) from your usual "
            "package index. A newer folder from your course brings a newer grader: "
            f"`pip install --force-reinstall --no-deps ./{wheel}` there.",
            "",
        ]
    torch = [e.id for e in exercises if e.engine == "torch"]
    if torch:
        lines.append(
            f"torch is needed by {', '.join(torch)} only; the other exercises never import it."
        )
    else:
        lines.append(
            "The grader installs with torch (the first line keeps it small); no "
            "exercise of this folder runs it."
        )
    return [*lines, ""]


def _check_files(first: str, assignments: Sequence[Assignment]) -> list[str]:
    """How to check a file or a notebook, here or elsewhere."""
    lines = [
        "## Check your work",
        "",
        "In this folder:",
        "",
        "```sh",
        f"grade {first}.py",
        f"grade {first}.ipynb",
    ]
    for assignment in assignments[:1]:
        lines.append(
            f"grade {assignment.id}.ipynb      # every exercise of the assignment, from one run "
            "of the notebook"
        )
    return [
        *lines,
        "```",
        "",
        "Elsewhere, name this folder's checks: `grade my_work.py --exercises "
        "PATH/TO/THIS/FOLDER/exercises`. In a notebook, run `from grader import check` and "
        "then `check()` in a cell: it checks what the notebook has run so far, in its own "
        "process, and shows the same report as a table.",
        "",
    ]


def _exercise_table(exercises: Sequence[Exercise]) -> list[str]:
    """A row per exercise: its files, the points checked here and in hidden checks, its time."""
    lines = [
        "## The exercises",
        "",
        "| exercise | files | points you can check here | in hidden checks | time limit |",
        "|---|---|---|---|---|",
    ]
    for exercise in exercises:
        public = sum(p.points for p in exercise.probes if p.visibility == "public")
        hidden = sum(p.points for p in exercise.probes if p.visibility == "hidden")
        hidden += exercise.hidden_points
        files = f"`{exercise.id}.py`, `{exercise.id}.ipynb`"
        if exercise.library is not None:
            files = ", ".join(f"`{dotted}`" for dotted, _ in exercise.defines)
        lines.append(
            f"| {exercise.id}: {exercise.title} | {files} | "
            f"{fmt_points(public)} | {fmt_points(hidden) if hidden else '–'} | "
            f"{fmt_points(exercise.time_limit)} s |"
        )
    return lines


_HIDDEN_AND_TIME = [
    "",
    "## Hidden checks",
    "",
    "Some exercises have hidden checks: they are not in this folder, and they are graded "
    "after you submit, on inputs you have not seen. Here your score is out of the public "
    "checks, and the report says how many points are left to the hidden ones (\"Score: 9/9 on "
    "the public checks; 1 more point is in hidden checks run after you submit\"). Passing "
    "every public check is a good sign, not a promise: write code that is right for every "
    "input, not for the ones the checks show. A hidden check's result says only whether it "
    "passed.",
    "",
    "## Time limits",
    "",
    "Each exercise gives your code the time in the table, for the whole file or notebook (all "
    "of its cells, top to bottom). When it runs out, your code is stopped: the checks it had "
    "not finished score 0, and the report says \"Your code did not finish within ...\". The "
    "usual cause is a loop that never ends (a `while` whose condition never changes), or a "
    "`backward()` that walks every path of the graph again instead of each node once. A "
    "notebook cell left running a long training loop counts too: tag it `skip-grading`, or "
    "keep such cells out of the file you submit.",
    "",
]


def _globs(library: Library | None) -> str:
    return ", ".join(f"`{glob}`" for glob in (library.files if library is not None else ()))


def _check_library(first: str) -> list[str]:
    return [
        "## Check your work",
        "",
        "In this folder (your repository):",
        "",
        "```sh",
        "grade .                     # every exercise",
        f"grade . --exercise {first}   # one of them",
        "```",
        "",
        "In a clone of your own elsewhere, name this folder's checks: `grade PATH/TO/YOUR/CLONE "
        "--exercises PATH/TO/THIS/FOLDER/exercises`. Only the course's files of the repository "
        "are read; your own tests and data are not.",
        "",
    ]


def _submit(
    assignments: Sequence[Assignment],
    server: str | None,
    submitted: Sequence[Submitted],
    library: bool = False,
) -> list[str]:
    """How to hand the work in: `grade submit`, the server it sends to, and where
    the student's token goes. A line names an assignment of the course's server
    (course.toml's ids, which are not always the exercises' or the catalog's);
    without the course, the form that is always right, and `--status` to list them."""
    where = (
        f"This folder's `{COURSE_FILE}` names your course's server ({server}). Add the token your "
        "instructor sent you to that file, on a line of its own:"
        if server
        else "If your course runs a grading server, your instructor gives you its address and a "
        f"token. Put both in a file `{COURSE_FILE}` in this folder:"
    )
    lines = ["## Submit your work", "", where, "", "```toml"]
    lines += ([] if server else ['server = "https://grader.example.edu"']) + [
        'token = "agt_..."',
        "```",
        "",
        "or set `$AUTOGRADER_TOKEN` to it"
        + ("" if server else " (and `$AUTOGRADER_SERVER` to the address)")
        + ". The token is yours alone: it is how the server knows you, so never share it, and "
        "keep the file out of anything you publish (a git repository, a forum post). Then, in "
        "this folder:",
        "",
        "```sh",
    ]
    commands = _submit_commands(submitted, library)
    width = max(len(command) for command, _ in commands)
    lines += [f"{command.ljust(width)}   # {about}" for command, about in commands]
    lines += [
        "```",
        "",
        "The receipt is the server's word that it holds your submission: keep it (its number and "
        "sha256). If the server cannot be reached, `grade submit` says so and nothing is stored; "
        "submit again later.",
        "",
    ]
    return lines


def _submit_commands(submitted: Sequence[Submitted], library: bool) -> list[tuple[str, str]]:
    """`grade submit`'s lines, each with what it does: one per assignment of the course's
    server, else the form that is always right."""
    commands = [
        (
            "grade submit --status",
            "the course's assignments, deadlines, submissions left today, what counts",
        )
    ]
    for ident, exercise_ids, notebook in submitted:
        file = "FILE"
        if library:
            file = "."
        elif notebook:
            file = f"{notebook}.ipynb"
        elif len(exercise_ids) == 1:
            file = f"{exercise_ids[0]}.py"
        answers = f"one file answering {', '.join(exercise_ids)}"
        if len(exercise_ids) == 1:
            answers = exercise_ids[0]
        commands.append((f"grade submit {file} --assignment {ident}", answers))
    if not submitted:
        sent = "; only the course's files of this repository are sent" if library else ""
        file = "." if library else "FILE"
        about = "ID: the assignment, as --status names it" + sent
        commands.append((f"grade submit {file} --assignment ID", about))
    commands += [
        ("grade submit --history", "every submission the server holds of yours"),
        ("grade submit --login", "a one-time link to your page on the server"),
    ]
    return commands
