"""`grade FILE`, the default command: grade one submission and print its report."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from grader import __version__
from grader.cli_commands import COMMANDS
from grader.cli_options import (
    Parser,
    add_device_option,
    add_exercises_option,
    add_isolation_option,
    check_device,
    devices,
    isolation_choice,
)
from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.judge.catalog import Catalog

if TYPE_CHECKING:
    from grader.run.read.load import Submission


def grade_parser() -> Parser:
    width = max(len(name) for name in COMMANDS)
    listed = [f"  {name.ljust(width)}  {about}" for name, about in COMMANDS.items()]
    parser = Parser(
        prog="grade",
        usage="grade SUBMISSION [options]\n"
        "       grade COMMAND [options]   (grade COMMAND --help for each)",
        description="Grade an autograd exercise: a .py file, a notebook or a folder.",
        epilog="commands:\n" + "\n".join(listed),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "submission",
        type=Path,
        help="the .py file or notebook (.ipynb) to grade, or a folder: the file in it that answers "
        "the exercise is graded, the other .py files are importable beside it",
    )
    _add_what_options(parser)
    _add_how_options(parser)
    parser.add_argument("--version", action="version", version=f"autograd-grader {__version__}")
    return parser


def _add_what_options(parser: Parser) -> None:
    """Which exercises, and which seed."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--exercise",
        "-e",
        metavar="ID",
        help="which exercise (default: the '# exercise: ID' line, or the notebook's metadata)",
    )
    which.add_argument(
        "--assignment",
        "-a",
        metavar="ID",
        help="grade every exercise of an assignment from one run of the notebook",
    )
    seeding = parser.add_mutually_exclusive_group()
    seeding.add_argument(
        "--seed", type=int, default=0, help="seed of the random probe inputs (default 0)"
    )
    seeding.add_argument(
        "--secret-file",
        type=Path,
        metavar="FILE",
        help="draw the seed from the course secret and the submission, as a batch and the "
        "exported autograder do (for instructors: the report shows its token, not the seed)",
    )


def _add_how_options(parser: Parser) -> None:
    """How it runs, and where its report goes."""
    parser.add_argument(
        "--format",
        choices=("text", "json", "gradescope", "junit"),
        default="text",
        help="report format: text (default), json (ours), gradescope (results.json), junit",
    )
    parser.add_argument(
        "--output", "-o", type=Path, metavar="FILE", help="write the report here, not to stdout"
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="wall-clock limit for the submission (default: the exercise's)",
    )
    add_device_option(parser)
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour in the text report (default: when writing to a terminal)",
    )
    add_isolation_option(
        parser, "landlock where the exercises hold solutions or hidden checks, else none"
    )
    add_exercises_option(parser)


def grade_command(argv: list[str]) -> int:
    """Read the file, grade it in a session of its own (grader.judge.session.grade), and print
    its report."""
    args = grade_parser().parse_args(argv)
    if args.time_limit is not None and args.time_limit <= 0:
        raise GraderError(
            f"--time-limit must be a positive number of seconds, got {args.time_limit}."
        )
    from grader.judge import session
    from grader.judge.expected_cache import ExpectedStore
    from grader.outputs.formats import render

    catalog = Catalog.find(args.exercises)
    check_device(args.device)
    submission, exercises = _submission_and_exercises(args, catalog)
    seed, token = args.seed, None
    if args.secret_file is not None:
        seed, token = _drawn_seed(args.submission, args.secret_file)
    report = session.grade(
        submission,
        exercises,
        seed=seed,
        seed_token=token,
        devices=devices(args.device),
        time_limit=args.time_limit,
        isolation=isolation_choice(args.isolation),
        store=ExpectedStore.for_user(),
    )
    to_terminal = args.output is None and sys.stdout.isatty()
    no_color = "NO_COLOR" in os.environ
    color = args.color == "always" or (args.color == "auto" and to_terminal and not no_color)
    _write(render(args.format, report, color=color), args.output)
    return report.exit_code


def _submission_and_exercises(
    args: argparse.Namespace, catalog: Catalog
) -> tuple[Submission, list[Exercise]]:
    """The submission (a file, or the file a folder's files answer with) and the exercises to
    grade it as: named on the command line, else by the file (a header line, or metadata)."""
    from grader.course.selection import Target, files_in, load_selected, select
    from grader.run.read.load import load_submission

    named = _named(args.exercise, args.assignment, catalog)
    library = catalog.library()
    if library is not None:
        from grader.run.read.package import read_package

        # a library course grades a whole repository: every exercise of the course unless some
        # are named
        everything = named if named is not None else catalog.load_all()
        return read_package(args.submission, library), everything
    if args.submission.is_dir():
        files = files_in(args.submission)
        selection = select(files, Target.of(named or [], args.assignment))
        if selection.graded is None:
            raise GraderError(f"{args.submission}: {selection.problem}")
        submission = load_selected(selection, files)
    else:
        submission = load_submission(args.submission)
    if named is not None:
        return submission, named
    declared = catalog.declared(
        submission.declared_exercise, submission.declared_assignment, submission.declares
    )
    if declared is None:
        raise GraderError(
            f"{submission.path}: which exercise is this? Pass --exercise ID (or --assignment ID), "
            f"add a line '# exercise: ID' to the file, or set it in the notebook's metadata. The "
            f"exercises: {', '.join(catalog.ids())}."
        )
    return submission, declared


def _drawn_seed(path: Path, secret_file: Path) -> tuple[int, str]:
    """The seed a batch draws for the submission at `path` (a file, or a folder of files), and its
    token."""
    from grader.core.seeds import submission_seed
    from grader.course.secret import read_secret
    from grader.course.selection import SubmittedFile, digest_content, files_in

    files = files_in(path) if path.is_dir() else [SubmittedFile(path.name, path)]
    drawn = submission_seed(read_secret(secret_file).value, digest_content(files))
    return drawn.seed, drawn.token


def _named(
    exercise_id: str | None, assignment_id: str | None, catalog: Catalog
) -> list[Exercise] | None:
    if exercise_id is not None:
        return [catalog.load(exercise_id)]
    if assignment_id is not None:
        return catalog.load_assignment(assignment_id)[1]
    return None


def _write(data: bytes, output: Path | None) -> None:
    if output is not None:
        try:
            output.write_bytes(data)
        except OSError as exc:
            raise GraderError(f"cannot write the report to {output}: {exc.strerror}.") from None
        return
    sys.stdout.flush()
    # absent where stdout was replaced by a text-only stream
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8"))
    else:
        buffer.write(data)
        buffer.flush()
