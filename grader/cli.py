"""`grade`: parse arguments, call the library, render, return an exit code. Nothing else."""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from grader import __version__
from grader.catalog import Catalog
from grader.errors import ExitCode, GraderError
from grader.isolate import Level
from grader.spec import Device, Exercise

COMMANDS = ("list", "validate", "release", "batch", "merge", "export")


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as a GraderError, so they reach the one catch site."""

    def error(self, message: str) -> NoReturn:
        raise GraderError(f"{message}. Try '{self.prog} --help'.")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in COMMANDS:
            command = args.pop(0)
            return {"list": _list, "validate": _validate, "release": _release, "batch": _batch, "merge": _merge,
                    "export": _export}[command](args)
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
    parser.add_argument("--format", choices=("text", "json", "gradescope", "junit"), default="text",
                        help="report format: text (default), json (ours), gradescope (results.json), junit")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the report here, not to stdout")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="wall-clock limit for the submission (default: the exercise's)")
    _add_device_option(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour in the text report (default: when writing to a terminal)")
    _add_isolation_option(parser, "landlock where the exercises hold solutions or hidden checks, else none")
    _add_exercises_option(parser)
    parser.add_argument("--version", action="version", version=f"autograd-grader {__version__}")
    return parser


def _add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=("cpu", "cuda", "all"), default="all",
                        help="where checks run: cpu, cuda, or all (default: CUDA too where available; "
                             "CUDA checks are skipped, not failed, without a GPU)")


def _devices(choice: str) -> tuple[Device, ...]:
    return ("cpu", "cuda") if choice == "all" else (choice,)  # type: ignore[return-value]


def _check_isolation(minimum: Level) -> None:
    from grader import isolate
    from grader.sandbox import IsolationRefused, refusal

    mode = isolate.best_mode()
    if not isolate.at_least(mode.level, minimum):
        raise IsolationRefused(refusal(mode, minimum))


def _check_device(choice: str) -> None:
    if choice == "cuda":
        from grader.grading import cuda_available

        if not cuda_available():
            raise GraderError("--device cuda: CUDA is not available on this machine. Use --device cpu, or all "
                              "(the default), which skips the CUDA checks without costing points.")


def _add_isolation_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--isolation", choices=("auto", "full", "namespaces", "landlock", "none"), default="auto",
                        help=f"the weakest confinement of submissions to accept; below it, grading stops before any "
                             f"submission runs (default auto: {default}; 'none' accepts the risk)")


def _isolation(choice: str) -> Level | None:
    return None if choice == "auto" else choice  # type: ignore[return-value]


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
                   time_limit=args.time_limit, isolation=_isolation(args.isolation))
    if args.format == "json":
        from grader.render_json import render_json

        text = render_json(report)
    elif args.format == "gradescope":
        import json

        from grader.formats.gradescope import gradescope_results

        text = json.dumps(gradescope_results(report), indent=2) + "\n"
    elif args.format == "junit":
        from grader.formats.junit import junit_xml

        text = junit_xml([(args.submission.name, report)])
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
    with Sandbox(hide=[catalog.root]) as sandbox:
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


def _batch(argv: list[str]) -> int:
    parser = _Parser(prog="grade batch",
                     description="Grade a class: one file (.py, .ipynb) or folder per student in SUBMISSIONS. Each "
                                 "student's reports are written as soon as they are graded; the gradebook and "
                                 "summary at the end. Exits 0 when every submission was graded, whatever the "
                                 "scores; 3 when the grader failed on any.")
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS")
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="REPORTS", help="where the reports go")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--exercise", "-e", metavar="ID", help="grade every submission as this exercise")
    which.add_argument("--assignment", "-a", metavar="ID", help="grade every submission as this assignment")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="workers, each with torch loaded once (default: the number of cores)")
    parser.add_argument("--resume", action="store_true",
                        help="grade only the students whose reports are missing, or whose submission changed")
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="columns submission,id[,name,sis_user_id,sis_login_id,section,email]")
    parser.add_argument("--shard", metavar="K/N", help="grade only the K-th of N shares of the students (CI)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random probe inputs (default 0)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS", help="per submission (default: the exercise's)")
    _add_device_option(parser)
    _add_isolation_option(parser, "landlock: a class always has classmates to protect")
    _add_exercises_option(parser)
    args = parser.parse_args(argv)
    if args.jobs < 1:
        raise GraderError(f"--jobs must be at least 1, got {args.jobs}.")
    from grader import batch

    catalog = Catalog.find(args.exercises)
    _check_device(args.device)
    exercise_ids = (args.exercise,) if args.exercise else \
        tuple(e.id for e in catalog.load_assignment(args.assignment)[1]) if args.assignment else ()
    for exercise_id in exercise_ids:
        catalog.load(exercise_id)  # a bad spec stops the batch before any work
    setup = batch.Setup(exercise_ids=exercise_ids, seed=args.seed, devices=_devices(args.device),
                        time_limit=args.time_limit, isolation=_isolation(args.isolation) or "landlock")
    _check_isolation(setup.isolation)  # before any worker starts: a refusal is one line, not a grader error each
    entries = batch.discover(args.submissions, args.roster)
    if args.shard:
        entries = batch.shard(entries, args.shard)
    fingerprint = setup.fingerprint(catalog)
    todo = batch.pending(entries, args.out, fingerprint) if args.resume else entries
    args.out.mkdir(parents=True, exist_ok=True)
    workers = min(args.jobs, max(len(todo), 1))
    print(f"{len(entries)} submissions in {args.submissions}; grading {len(todo)} with {workers} workers"
          + (f" ({len(entries) - len(todo)} already done)" if args.resume else ""))
    started = time.monotonic()
    with _progress(len(todo)) as progress:
        tally = batch.run(todo, setup, catalog, args.out, fingerprint, args.jobs, progress,
                          hide=[catalog.root, args.submissions, args.out])
    rows = batch.write_class_files(args.out, catalog)
    elapsed = time.monotonic() - started
    print(f"graded {tally.graded}, unreadable {tally.unreadable}, grader errors {len(tally.grader_errors)} "
          f"in {elapsed:.1f} s ({len(todo) / elapsed if elapsed else 0:.1f} per second); "
          f"{len(rows)} students in {args.out}")
    if rows:
        mean = sum(r.report.score for r in rows) / len(rows)
        print(f"mean score {mean:.2f} of {max(r.report.max_score for r in rows):g}; class summary: "
              f"{args.out / 'summary.html'}; gradebook: {args.out / 'gradebook.csv'}")
    for error in tally.grader_errors:
        print(f"grader error: {error}", file=sys.stderr)
    return ExitCode.INTERNAL_ERROR if tally.grader_errors else ExitCode.OK


class _progress:
    """A progress bar on a terminal; a plain line per student in a CI log."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.bar: Any = None

    def __enter__(self) -> Callable[[dict[str, Any]], None]:
        if sys.stdout.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("grading", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            self.bar.start()
            self.task = self.bar.add_task("grading", total=self.total)
        return self.step

    def step(self, result: dict[str, Any]) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.advance(self.task)
            return
        width = len(str(self.total))
        score = f"{result['score']:g}/{result['max_score']:g}" if result["outcome"] != "grader-error" else "-"
        print(f"[{self.done:>{width}}/{self.total}] {result['student']}  {score}  {result['outcome']}  "
              f"{result['seconds']:.2f} s", flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _merge(argv: list[str]) -> int:
    parser = _Parser(prog="grade merge",
                     description="Join the report folders of several `grade batch --shard` runs into one gradebook "
                                 "and summary.")
    parser.add_argument("folders", type=Path, nargs="+", metavar="REPORTS")
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR")
    _add_exercises_option(parser)
    args = parser.parse_args(argv)
    from grader import batch

    try:
        catalog: Catalog | None = Catalog.find(args.exercises)
    except GraderError:
        catalog = None  # points possible then come from the reports themselves
    rows = batch.merge(args.folders, args.out, catalog)
    print(f"merged {len(rows)} students from {len(args.folders)} folders into {args.out}")
    return ExitCode.OK


def _export(argv: list[str]) -> int:
    parser = _Parser(prog="grade export",
                     description="Write what runs the grader on a platform. gradescope: setup.sh and run_autograder "
                                 "(and autograder.zip with them, the grader and the exercises).")
    parser.add_argument("platform", choices=("gradescope",))
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--exercise", "-e", metavar="ID")
    which.add_argument("--assignment", "-a", metavar="ID")
    _add_exercises_option(parser)
    args = parser.parse_args(argv)
    from grader.export import export_gradescope

    catalog = Catalog.find(args.exercises)
    zipped = export_gradescope(catalog, args.out, exercise=args.exercise, assignment=args.assignment)
    print(f"wrote {args.out / 'setup.sh'}, {args.out / 'run_autograder'} and {zipped}: upload the zip as the "
          f"assignment's autograder")
    return ExitCode.OK
