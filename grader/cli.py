"""`grade`: parse arguments, call the library, render, return an exit code. Nothing else."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from grader import __version__
from grader.catalog import Catalog
from grader.errors import ExitCode, GraderError
from grader.spec import Device, Exercise

COMMANDS = ("list", "validate", "release")


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as a GraderError, so they reach the one catch site."""

    def error(self, message: str) -> NoReturn:
        raise GraderError(f"{message}. Try '{self.prog} --help'.")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in COMMANDS:
            command = args.pop(0)
            return {"list": _list, "validate": _validate, "release": _release}[command](args)
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


def _grade_parser() -> _Parser:
    parser = _Parser(
        prog="grade",
        description="Grade an autograd exercise. Other commands: 'grade list' (the exercises), "
                    "'grade validate [ID...]' (prove exercises sound).",
    )
    parser.add_argument("submission", type=Path, help="the .py file or notebook (.ipynb) to grade")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--exercise", "-e", metavar="ID",
                       help="which exercise (default: the '# exercise: ID' line, or the notebook's metadata)")
    which.add_argument("--assignment", "-a", metavar="ID",
                       help="grade every exercise of an assignment from one run of the notebook")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random probe inputs (default 0)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default text)")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the report here, not to stdout")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="wall-clock limit for the submission (default: the exercise's)")
    _add_device_option(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour in the text report (default: when writing to a terminal)")
    _add_exercises_option(parser)
    parser.add_argument("--version", action="version", version=f"autograd-grader {__version__}")
    return parser


def _add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=("cpu", "cuda", "all"), default="all",
                        help="where checks run: cpu, cuda, or all (default: CUDA too where available; "
                             "CUDA checks are skipped, not failed, without a GPU)")


def _devices(choice: str) -> tuple[Device, ...]:
    return ("cpu", "cuda") if choice == "all" else (choice,)  # type: ignore[return-value]


def _check_device(choice: str) -> None:
    if choice == "cuda":
        from grader.grading import cuda_available

        if not cuda_available():
            raise GraderError("--device cuda: CUDA is not available on this machine. Use --device cpu, or all "
                              "(the default), which skips the CUDA checks without costing points.")


def _add_exercises_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--exercises", type=Path, metavar="DIR",
                        help="the exercises folder (default: $AUTOGRADER_EXERCISES, ./exercises, or the bundled one)")


def _grade(argv: list[str]) -> int:
    args = _grade_parser().parse_args(argv)
    if args.time_limit is not None and args.time_limit <= 0:
        raise GraderError(f"--time-limit must be a positive number of seconds, got {args.time_limit}.")
    from grader.grading import grade

    catalog = Catalog.find(args.exercises)
    _check_device(args.device)
    report = grade(args.submission, _exercises_for(args, catalog), seed=args.seed, devices=_devices(args.device),
                   time_limit=args.time_limit)
    if args.format == "json":
        from grader.render_json import render_json

        text = render_json(report)
    else:
        from grader.render_text import render_text

        to_terminal = args.output is None and sys.stdout.isatty()
        color = args.color == "always" or (args.color == "auto" and to_terminal and "NO_COLOR" not in os.environ)
        text = render_text(report, color=color)
    _write(text, args.output)
    return report.exit_code


def _exercises_for(args: argparse.Namespace, catalog: Catalog) -> list[Exercise]:
    """The exercises to grade: named on the command line, else by the file (a header line, or metadata)."""
    from grader.load import load_submission

    assignment_id, exercise_id = args.assignment, args.exercise
    if assignment_id is None and exercise_id is None:
        submission = load_submission(args.submission)
        exercise_id, assignment_id = submission.declared_exercise, submission.declared_assignment
    if exercise_id is not None:
        return [catalog.load(exercise_id)]
    if assignment_id is not None:
        return catalog.load_assignment(assignment_id)[1]
    raise GraderError(f"{args.submission}: which exercise is this? Pass --exercise ID (or --assignment ID), add "
                      f"a line '# exercise: ID' to the file, or set it in the notebook's metadata. The exercises: "
                      f"{', '.join(catalog.ids())}.")


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise GraderError(f"cannot write the report to {output}: {exc.strerror}.") from None


def _list(argv: list[str]) -> int:
    parser = _Parser(prog="grade list", description="List the exercises.")
    _add_exercises_option(parser)
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


def _validate(argv: list[str]) -> int:
    parser = _Parser(prog="grade validate",
                     description="Prove exercises sound: oracles agree, the solution scores full marks, "
                                 "every mutant loses points.")
    parser.add_argument("ids", nargs="*", metavar="ID", help="exercises to validate (default: all)")
    parser.add_argument("--seeds", type=int, default=3, help="how many seeds to try (default 3)")
    _add_device_option(parser)
    _add_exercises_option(parser)
    args = parser.parse_args(argv)
    if args.seeds < 1:
        raise GraderError(f"--seeds must be at least 1, got {args.seeds}.")
    from grader.sandbox import Sandbox
    from grader.validate import validate_exercise

    catalog = Catalog.find(args.exercises)
    _check_device(args.device)
    exercises = [catalog.load(i) for i in args.ids] if args.ids else catalog.load_all()
    failed = 0
    with Sandbox() as sandbox:
        for exercise in exercises:
            validation = validate_exercise(exercise, sandbox, list(range(args.seeds)), _devices(args.device))
            failed += not validation.ok
            print(f"{'ok  ' if validation.ok else 'FAIL'} {exercise.id}")
            for finding in validation.findings:
                print(f"     {'✓' if finding.ok else '✗'} {finding.text}")
    print(f"{len(exercises) - failed} of {len(exercises)} exercises sound")
    return ExitCode.CHECKS_FAILED if failed else ExitCode.OK


def _release(argv: list[str]) -> int:
    parser = _Parser(prog="grade release",
                     description="Write the pack a course hands out: each exercise's starter as .py and .ipynb, "
                                 "assignment notebooks, and the public checks; no solutions, mutants or hidden "
                                 "checks.")
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="exercises to release (default: all, and every assignment)")
    parser.add_argument("--assignment", "-a", action="append", default=[], metavar="ID",
                        help="an assignment to release as one notebook (repeatable)")
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR", help="where to write the pack")
    _add_exercises_option(parser)
    args = parser.parse_args(argv)
    from grader.release import release

    catalog = Catalog.find(args.exercises)
    everything = not args.ids and not args.assignment
    ids = catalog.ids() if everything else args.ids
    assignments = catalog.assignment_ids() if everything else args.assignment
    written = release(catalog, args.out, ids, assignments)
    print(f"wrote {len(written)} files to {args.out}: {len(ids)} exercises, {len(assignments)} assignments")
    return ExitCode.OK
