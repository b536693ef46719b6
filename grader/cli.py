"""`grade`: parse arguments, call the library, render, return an exit code. Nothing else."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from grader import __version__
from grader.catalog import Catalog
from grader.errors import ExitCode, GraderError
from grader.exercise import Device, Exercise
from grader.isolate import Level

if TYPE_CHECKING:
    from grader.load import Submission

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
}


class Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as a GraderError, so they reach the one catch site."""

    def error(self, message: str) -> NoReturn:
        raise GraderError(f"{message}. Try '{self.prog} --help'.")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in COMMANDS:
            command = args.pop(0)
            run = {"list": _list, "new": _new, "schema": _schema, "validate": _validate, "release": _release,
                   "batch": _batch, "merge": _merge, "feedback": _feedback, "publish": _publish, "export": _export}
            return run[command](args)
        if args:
            _not_a_command(args[0])
        return _grade(args)
    except GraderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
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


def _grade_parser() -> Parser:
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
    parser.add_argument("--seed", type=int, default=0, help="seed of the random probe inputs (default 0)")
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


def add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=("cpu", "cuda", "all"), default="all",
                        help="where checks run: cpu, cuda, or all (default: CUDA too where available; "
                             "CUDA checks are skipped, not failed, without a GPU)")


def devices(choice: str) -> tuple[Device, ...]:
    return ("cpu", "cuda") if choice == "all" else (choice,)  # type: ignore[return-value]


def add_isolation_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--isolation", choices=("auto", "full", "namespaces", "landlock", "none"), default="auto",
                        help=f"the weakest confinement of submissions to accept; below it, grading stops before any "
                             f"submission runs (default auto: {default}; 'none' accepts the risk)")


def isolation_choice(choice: str) -> Level | None:
    return None if choice == "auto" else choice  # type: ignore[return-value]


def check_isolation(minimum: Level) -> None:
    """Refuse, in one line, to grade below `minimum`, before any worker or submission starts."""
    from grader import isolate
    from grader.sandbox import IsolationRefused, refusal

    mode = isolate.best_mode()
    if not isolate.at_least(mode.level, minimum):
        raise IsolationRefused(refusal(mode, minimum))


def check_device(choice: str) -> None:
    if choice == "cuda":
        from grader.grading import cuda_available

        if not cuda_available():
            raise GraderError("--device cuda: CUDA is not available on this machine. Use --device cpu, or all "
                              "(the default), which skips the CUDA checks without costing points.")


def add_exercises_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--exercises", type=Path, metavar="DIR",
                        help="the exercises folder (default: $AUTOGRADER_EXERCISES, ./exercises, or the bundled one)")


def _grade(argv: list[str]) -> int:
    args = _grade_parser().parse_args(argv)
    if args.time_limit is not None and args.time_limit <= 0:
        raise GraderError(f"--time-limit must be a positive number of seconds, got {args.time_limit}.")
    from grader.grading import grade

    catalog = Catalog.find(args.exercises)
    check_device(args.device)
    submission, exercises = _submission_and_exercises(args, catalog)
    report = grade(submission, exercises, seed=args.seed, devices=devices(args.device), time_limit=args.time_limit,
                   isolation=isolation_choice(args.isolation))
    from grader.formats import render
    from grader.students import Student

    to_terminal = args.output is None and sys.stdout.isatty()
    color = args.color == "always" or (args.color == "auto" and to_terminal and "NO_COLOR" not in os.environ)
    name = args.submission.name
    _write(render(args.format, report, student=Student(id=name, name=name, submission=name), color=color),
           args.output)
    return report.exit_code


def _submission_and_exercises(args: argparse.Namespace, catalog: Catalog) -> tuple[Submission, list[Exercise]]:
    """The submission (a file, or the file a folder's files answer with) and the exercises to grade it as:
    named on the command line, else by the file (a header line, or metadata)."""
    from grader.load import load_submission
    from grader.selection import Target, files_in, load_selected, select

    named = _named(args.exercise, args.assignment, catalog)
    if args.submission.is_dir():
        files = files_in(args.submission)
        selection = select(files, Target.of(named or [], args.assignment))
        if selection.graded is None:
            raise GraderError(f"{args.submission}: {selection.problem}")
        submission = load_selected(selection, files)
    else:
        submission = load_submission(args.submission)
    exercises = named if named is not None else _named(submission.declared_exercise, submission.declared_assignment,
                                                       catalog)
    if exercises is None:
        raise GraderError(f"{submission.path}: which exercise is this? Pass --exercise ID (or --assignment ID), add "
                          f"a line '# exercise: ID' to the file, or set it in the notebook's metadata. The exercises: "
                          f"{', '.join(catalog.ids())}.")
    return submission, exercises


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


def _list(argv: list[str]) -> int:
    parser = Parser(prog="grade list", description="List the exercises.")
    add_exercises_option(parser)
    args = parser.parse_args(argv)
    catalog = Catalog.find(args.exercises)
    exercises = catalog.load_all()
    width = max((len(e.id) for e in exercises), default=0)
    for exercise in exercises:
        print(f"{exercise.id.ljust(width)}  {exercise.points:>4g} pts  {exercise.title}")
    if not exercises:
        print(f"no exercises in {catalog.root}")
    for assignment_id in catalog.assignment_ids():
        assignment, members = catalog.load_assignment(assignment_id)
        print(f"assignment {assignment.id}: {assignment.title} ({', '.join(e.id for e in members)})")
    return ExitCode.OK


def _new(argv: list[str]) -> int:
    parser = Parser(prog="grade new",
                     description="Start an exercise: exercise.yaml, starter.py, solution.py and mutants/ with one "
                                 "example, each marked TODO(grade new) where there is still something to write. "
                                 "Then 'grade validate ID' says what is left.")
    parser.add_argument("id", metavar="ID", help="the new exercise's id (its folder's name)")
    parser.add_argument("--like", metavar="EXISTING", help="start from a copy of this exercise")
    parser.add_argument("--engine", choices=("scalar", "torch"), default="scalar",
                        help="without --like: a scalar engine exercise (the default) or a PyTorch one")
    add_exercises_option(parser)
    args = parser.parse_args(argv)
    from grader.scaffold import new_exercise

    if args.exercises is not None:
        args.exercises.mkdir(parents=True, exist_ok=True)  # a course starting its own folder
    catalog = Catalog.find(args.exercises)
    like = catalog.load(args.like) if args.like else None
    written = new_exercise(catalog.root, args.id, args.engine, like)
    print(f"wrote {len(written)} files to {catalog.root / args.id}:")
    for path in written:
        print(f"  {path}")
    where = f" --exercises {args.exercises}" if args.exercises is not None else ""
    print(f"fill in each TODO(grade new), then run: grade validate{where} {args.id}")
    return ExitCode.OK


def _schema(argv: list[str]) -> int:
    parser = Parser(prog="grade schema",
                     description="Print the JSON Schema every exercise.yaml is checked against (or an assignment's). "
                                 "Save it and start a spec with '# yaml-language-server: $schema=PATH', and editors "
                                 "complete and check it.")
    parser.add_argument("kind", nargs="?", choices=("exercise", "assignment"), default="exercise")
    args = parser.parse_args(argv)
    from grader.spec_yaml import schema_text

    sys.stdout.write(schema_text(args.kind))
    return ExitCode.OK


def _validate(argv: list[str]) -> int:
    parser = Parser(prog="grade validate",
                     description="Prove exercises sound: oracles agree, the solution scores full marks, "
                                 "every mutant loses points.")
    parser.add_argument("ids", nargs="*", metavar="ID", help="exercises to validate (default: all)")
    parser.add_argument("--seeds", type=int, default=3, help="how many seeds to try (default 3)")
    add_device_option(parser)
    add_exercises_option(parser)
    args = parser.parse_args(argv)
    if args.seeds < 1:
        raise GraderError(f"--seeds must be at least 1, got {args.seeds}.")
    from grader.sandbox import Sandbox
    from grader.validate import validate_exercise

    catalog = Catalog.find(args.exercises)
    check_device(args.device)
    exercises = [catalog.load(i) for i in args.ids] if args.ids else catalog.load_all()
    failed = 0
    with Sandbox(hide=[catalog.root]) as sandbox:
        for exercise in exercises:
            validation = validate_exercise(exercise, sandbox, list(range(args.seeds)), devices(args.device))
            failed += not validation.ok
            print(f"{'ok  ' if validation.ok else 'FAIL'} {exercise.id}")
            for finding in validation.findings:
                print(f"     {'✓' if finding.ok else '✗'} {finding.text}")
    print(f"{len(exercises) - failed} of {len(exercises)} exercises sound")
    return ExitCode.CHECKS_FAILED if failed else ExitCode.OK


def _release(argv: list[str]) -> int:
    parser = Parser(prog="grade release",
                     description="Write the pack a course hands out: each exercise's starter as .py and .ipynb, "
                                 "assignment notebooks, and the public checks; no solutions, mutants or hidden "
                                 "checks.")
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="exercises to release (default: all, and every assignment)")
    parser.add_argument("--assignment", "-a", action="append", default=[], metavar="ID",
                        help="an assignment to release as one notebook (repeatable)")
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR", help="where to write the pack")
    add_exercises_option(parser)
    args = parser.parse_args(argv)
    from grader.release import release

    catalog = Catalog.find(args.exercises)
    everything = not args.ids and not args.assignment
    ids = catalog.ids() if everything else args.ids
    assignments = catalog.assignment_ids() if everything else args.assignment
    written = release(catalog, args.out, ids, assignments)
    print(f"wrote {len(written)} files to {args.out}: {len(ids)} exercises, {len(assignments)} assignments")
    return ExitCode.OK


def _batch(argv: list[str]) -> int:
    from grader.cli_batch import batch_command

    return batch_command(argv)


def _merge(argv: list[str]) -> int:
    from grader.cli_batch import merge_command

    return merge_command(argv)


def _feedback(argv: list[str]) -> int:
    from grader.cli_batch import feedback_command

    return feedback_command(argv)


def _publish(argv: list[str]) -> int:
    from grader.cli_batch import publish_command

    return publish_command(argv)


def _export(argv: list[str]) -> int:
    parser = Parser(prog="grade export",
                     description="Write what runs the grader on a platform. gradescope: setup.sh and run_autograder "
                                 "(and autograder.zip with them, the grader and the exercises).")
    parser.add_argument("platform", choices=("gradescope",))
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--exercise", "-e", metavar="ID")
    which.add_argument("--assignment", "-a", metavar="ID")
    add_exercises_option(parser)
    args = parser.parse_args(argv)
    from grader.export import export_gradescope

    catalog = Catalog.find(args.exercises)
    zipped = export_gradescope(catalog, args.out, exercise=args.exercise, assignment=args.assignment)
    print(f"wrote {args.out / 'setup.sh'}, {args.out / 'run_autograder'} and {zipped}: upload the zip as the "
          f"assignment's autograder")
    return ExitCode.OK
