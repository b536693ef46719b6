"""`grade`: pick the command, grade one submission (the default command), and turn every error into an exit
code, caught here once. The other commands live in grader.cli_course and grader.cli_batch; each parses its
arguments, calls the library and prints what came of it."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader import __version__
from grader.cli_options import (
    Parser,
    add_device_option,
    add_exercises_option,
    add_isolation_option,
    check_device,
    devices,
    isolation_choice,
)
from grader.core.errors import ExitCode, GraderError
from grader.core.exercise import Exercise
from grader.judge.catalog import Catalog

if TYPE_CHECKING:
    from grader.run.read.load import Submission

#: every command besides grading one submission, with the line `grade --help` shows for it
COMMANDS = {
    "list": "the exercises and assignments",
    "new": "start a new exercise in the course's exercises folder (grade new ID [--like EXISTING])",
    "schema": "print the JSON Schema of exercise.yaml (for editors)",
    "validate": "prove exercises sound: oracles agree, solutions score full marks, every mutant loses points",
    "release": "write the pack a course hands out: starters, notebooks, public checks",
    "batch": "grade a class: a report, a feedback page and the gradebook for every student",
    "merge": "join the report folders of a batch's shards into one",
    "feedback": "write each student's feedback page again from a batch's reports",
    "publish": "send a batch's scores to the LMS (LTI 1.3 AGS)",
    "export": "write what runs the grader on a platform (gradescope)",
    "seed": "turn a report's seed token back into its seed (grade seed TOKEN), or make a course secret",
    "serve": "run the course server: students submit to it, it grades and keeps every submission",
    "submit": "submit a file to the course server; a receipt, then the report of the public checks",
    "tokens": "issue each roster student a token for grade submit (or revoke one)",
    "worker": "grade submissions from the course server's queue, on this machine",
    "regrade": "grade every stored submission again, after an exercise changed",
    "gradebook": "write an assignment's counted scores as the batch's gradebook, and publish them",
    "roster": "bring the course server's roster from the LMS (grade roster sync: LTI Names and Roles)",
    "store": "back up the course server's store while it runs, restore a backup, or copy it to PostgreSQL",
    "course": "check a course server's course.toml as grade serve reads it (grade course check)",
}


#: the commands grader.cli_batch runs; grader.cli_course runs the others
_CLASS_COMMANDS = frozenset({"batch", "merge", "feedback", "publish"})
#: the course server's, which grader.cli_service runs
_SERVICE_COMMANDS = frozenset({"serve", "submit", "tokens", "worker", "regrade", "gradebook", "roster", "course"})


def command_function(command: str, kind: str) -> Any:
    """`grade COMMAND`'s `kind` function (its "command", or the "parser" it parses with), from its module."""
    module = import_module("grader.cli_batch" if command in _CLASS_COMMANDS else
                           "grader.cli_service" if command in _SERVICE_COMMANDS else
                           "grader.cli_store" if command == "store" else "grader.cli_course")
    return getattr(module, f"{command}_{kind}")


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and "_ARGCOMPLETE" in os.environ:  # the shell asks for completions: answer, then exit
        from grader.cli_complete import complete

        complete()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in COMMANDS:
            command = args.pop(0)
            run: Callable[[list[str]], int] = command_function(command, "command")
            return run(args)
        if args:
            _not_a_command(args[0])
        return _grade(args)
    except GraderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (grade list | head): nothing is wrong, and what is left to print has nowhere to go.
        # Point stdout at nothing, so that the interpreter's own flush at exit does not complain again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.PIPE_CLOSED
    except Exception:  # noqa: BLE001 - a bug in the grader: show everything
        traceback.print_exc()
        print(f"error: internal error in autograd-grader {__version__}; please report it with the traceback above.",
              file=sys.stderr)
        return ExitCode.INTERNAL_ERROR


def _not_a_command(word: str) -> None:
    """A first word that is neither a command nor a file but reads like a mistyped command: say which one."""
    if word.startswith("-") or Path(word).exists():
        return
    close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    if close:
        raise GraderError(f"{word}: no such command or file. Did you mean 'grade {close[0]}'? "
                          f"'grade --help' lists the commands.")


def grade_parser() -> Parser:
    width = max(len(name) for name in COMMANDS)
    parser = Parser(
        prog="grade",
        usage="grade SUBMISSION [options]\n       grade COMMAND [options]   (grade COMMAND --help for each)",
        description="Grade an autograd exercise: a .py file, a notebook or a folder.",
        epilog="commands:\n" + "\n".join(f"  {name.ljust(width)}  {about}" for name, about in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("submission", type=Path,
                        help="the .py file or notebook (.ipynb) to grade, or a folder: the file in it that answers "
                             "the exercise is graded, the other .py files are importable beside it")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--exercise", "-e", metavar="ID",
                       help="which exercise (default: the '# exercise: ID' line, or the notebook's metadata)")
    which.add_argument("--assignment", "-a", metavar="ID",
                       help="grade every exercise of an assignment from one run of the notebook")
    seeding = parser.add_mutually_exclusive_group()
    seeding.add_argument("--seed", type=int, default=0, help="seed of the random probe inputs (default 0)")
    seeding.add_argument("--secret-file", type=Path, metavar="FILE",
                         help="draw the seed from the course secret and the submission, as a batch and the exported "
                              "autograder do (for instructors: the report shows its token, not the seed)")
    parser.add_argument("--format", choices=("text", "json", "gradescope", "junit"), default="text",
                        help="report format: text (default), json (ours), gradescope (results.json), junit")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the report here, not to stdout")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="wall-clock limit for the submission (default: the exercise's)")
    add_device_option(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour in the text report (default: when writing to a terminal)")
    add_isolation_option(parser, "landlock where the exercises hold solutions or hidden checks, else none")
    add_exercises_option(parser)
    parser.add_argument("--version", action="version", version=f"autograd-grader {__version__}")
    return parser


def _grade(argv: list[str]) -> int:
    args = grade_parser().parse_args(argv)
    if args.time_limit is not None and args.time_limit <= 0:
        raise GraderError(f"--time-limit must be a positive number of seconds, got {args.time_limit}.")
    from grader.judge.expected_cache import ExpectedStore
    from grader.judge.grading import grade

    catalog = Catalog.find(args.exercises)
    check_device(args.device)
    submission, exercises = _submission_and_exercises(args, catalog)
    seed, token = args.seed, None
    if args.secret_file is not None:
        seed, token = _drawn_seed(args.submission, args.secret_file)
    report = grade(submission, exercises, seed=seed, devices=devices(args.device), time_limit=args.time_limit,
                   isolation=isolation_choice(args.isolation), store=ExpectedStore.for_user(),
                   seed_token=token)
    from grader.outputs.formats import render
    from grader.outputs.students import Student

    to_terminal = args.output is None and sys.stdout.isatty()
    color = args.color == "always" or (args.color == "auto" and to_terminal and "NO_COLOR" not in os.environ)
    name = args.submission.name
    _write(render(args.format, report, student=Student(id=name, name=name, submission=name), color=color),
           args.output)
    return report.exit_code


def _submission_and_exercises(args: argparse.Namespace, catalog: Catalog) -> tuple[Submission, list[Exercise]]:
    """The submission (a file, or the file a folder's files answer with) and the exercises to grade it as:
    named on the command line, else by the file (a header line, or metadata)."""
    from grader.course.selection import Target, files_in, load_selected, select
    from grader.run.read.load import load_submission

    named = _named(args.exercise, args.assignment, catalog)
    library = catalog.library()
    if library is not None:
        from grader.run.read.package import read_package

        # a library course grades a whole repository: every exercise of the course unless some are named
        return read_package(args.submission, library), named if named is not None else catalog.load_all()
    if args.submission.is_dir():
        files = files_in(args.submission)
        selection = select(files, Target.of(named or [], args.assignment))
        if selection.graded is None:
            raise GraderError(f"{args.submission}: {selection.problem}")
        submission = load_selected(selection, files)
    else:
        submission = load_submission(args.submission)
    exercises = named if named is not None else catalog.declared(submission.declared_exercise,
                                                                 submission.declared_assignment, submission.declares)
    if exercises is None:
        raise GraderError(f"{submission.path}: which exercise is this? Pass --exercise ID (or --assignment ID), add "
                          f"a line '# exercise: ID' to the file, or set it in the notebook's metadata. The exercises: "
                          f"{', '.join(catalog.ids())}.")
    return submission, exercises


def _drawn_seed(path: Path, secret_file: Path) -> tuple[int, str]:
    """The seed a batch draws for the submission at `path` (a file, or a folder of files), and its token."""
    from grader.core.seeds import submission_seed
    from grader.course.secret import read_secret
    from grader.course.selection import SubmittedFile, digest_content, files_in

    files = files_in(path) if path.is_dir() else [SubmittedFile(path.name, path)]
    drawn = submission_seed(read_secret(secret_file).value, digest_content(files))
    return drawn.seed, drawn.token


def _named(exercise_id: str | None, assignment_id: str | None, catalog: Catalog) -> list[Exercise] | None:
    if exercise_id is not None:
        return [catalog.load(exercise_id)]
    if assignment_id is not None:
        return catalog.load_assignment(assignment_id)[1]
    return None


def _write(data: bytes, output: Path | None) -> None:
    if output is None:
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)  # absent where stdout was replaced by a text-only stream
        if buffer is None:
            sys.stdout.write(data.decode("utf-8"))
        else:
            buffer.write(data)
            buffer.flush()
        return
    try:
        output.write_bytes(data)
    except OSError as exc:
        raise GraderError(f"cannot write the report to {output}: {exc.strerror}.") from None
