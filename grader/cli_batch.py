"""The class commands of `grade`: batch, merge, feedback and publish.
Each parses its arguments, calls the library (grader.course.class_batch,
classfiles, feedback and publish) and prints what came of it."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from grader.cli_options import (
    Command,
    Parser,
    add_device_option,
    add_exercises_option,
    add_isolation_option,
    add_secret_option,
    check_device,
    check_isolation,
    devices,
    isolation_choice,
)
from grader.core.errors import ExitCode, GraderError
from grader.course.lms.downloads import NAMES
from grader.judge.catalog import Catalog

if TYPE_CHECKING:
    from grader.course.class_batch import ClassGraded, ClassPlan, ClassRequest
    from grader.course.manifest import Setup
    from grader.course.secret import CourseSecret
    from grader.course.wire import Done


def batch_parser() -> Parser:
    parser = Parser(
        prog="grade batch",
        description="Grade a class: one file (.py, .ipynb) or folder per student in SUBMISSIONS, "
        "or an LMS's bulk download (Canvas, Gradescope, Moodle). Each student's reports are "
        "written as soon as they are graded; the gradebook and summary at the end. Exits 0 "
        "when every submission was graded, whatever the scores; 3 when the grader failed on "
        "any.",
    )
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS")
    parser.add_argument(
        "--out", "-o", type=Path, required=True, metavar="REPORTS", help="where the reports go"
    )
    _add_work_options(parser)
    _add_class_options(parser)
    _add_grading_options(parser)
    return parser


def _add_work_options(parser: Parser) -> None:
    """What each submission is graded as, by how many workers, and whether the batch goes on."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--exercise", "-e", metavar="ID", help="grade every submission as this exercise"
    )
    which.add_argument(
        "--assignment", "-a", metavar="ID", help="grade every submission as this assignment"
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="workers, each with torch loaded once (default: the number of cores)",
    )
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="go on with the batch in REPORTS: grade only the students whose reports are missing, "
        "or whose submission changed",
    )
    again.add_argument(
        "--force",
        action="store_true",
        help="start over in a REPORTS that holds an earlier batch's reports (they are removed)",
    )


def _add_class_options(parser: Parser) -> None:
    """Who the students are, which of them this run grades, and the gradebook's columns."""
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="CSV",
        help="columns id[,submission,name,sis_user_id,sis_login_id,section,email]; a blank "
        "submission is matched by id or email, and is missing if nothing matches",
    )
    parser.add_argument(
        "--names",
        choices=NAMES,
        help="how the folder names students: plain (a file or folder each), or an LMS's bulk "
        "download: canvas, gradescope, moodle (default: detected)",
    )
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="grade only the K-th of N shares of the students (CI); auto: from a Slurm job array "
        "(SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)",
    )
    parser.add_argument(
        "--gradebook-columns",
        choices=("total", "exercises", "both"),
        help="gradebook.csv's columns: the assignment's total, each exercise, or both (default: "
        "the total with --assignment or --column, else each exercise)",
    )
    parser.add_argument(
        "--column",
        metavar="TITLE",
        help="the total's column title in gradebook.csv: the LMS's assignment "
        "these scores are (Canvas matches a column to its assignment by "
        "title, or 'title (id)'); default: --assignment's id",
    )


def _add_grading_options(parser: Parser) -> None:
    """How each submission is graded: its seed, time, devices and confinement."""
    parser.add_argument(
        "--seed",
        type=int,
        help="one seed for every submission, instead of one drawn per submission from the course "
        "secret (default, without a secret: 0)",
    )
    add_secret_option(parser, "each report shows a token: grade seed TOKEN turns it back")
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="per submission (default: the exercise's)",
    )
    add_device_option(parser)
    add_isolation_option(parser, "landlock: a class always has classmates to protect")
    add_exercises_option(parser)


def batch_command(argv: list[str]) -> int:
    args = batch_parser().parse_args(argv)
    _check_batch_arguments(args)
    from grader.course.class_batch import grade_class, plan_class

    catalog = Catalog.find(args.exercises)
    check_device(args.device)
    secret = _secret(args, catalog)
    setup = _setup(args, catalog, secret)
    # before any worker starts: a refusal is one line, not a grader error each
    check_isolation(setup.isolation)
    plan = plan_class(_request(args, setup), catalog)
    _say_plan(args, plan)
    _say_seeds(setup.seed, secret, catalog)
    try:
        with _progress(len(plan.todo)) as progress:
            graded = grade_class(plan, catalog, progress)
    except KeyboardInterrupt:
        print(
            f"interrupted: every student graded so far is kept in {args.out}; run the same "
            "command with --resume to grade the rest",
            file=sys.stderr,
        )
        raise
    return _say_graded(args, graded)


def _check_batch_arguments(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise GraderError(f"--jobs must be at least 1, got {args.jobs}.")
    if args.gradebook_columns in ("total", "both") and not (args.assignment or args.column):
        raise GraderError(
            f"--gradebook-columns {args.gradebook_columns} needs --assignment or "
            "--column: the total is the assignment's."
        )
    if args.column is not None and not args.column.strip():
        raise GraderError(
            "--column needs a title: the LMS assignment's, as its gradebook shows it."
        )


def _setup(args: argparse.Namespace, catalog: Catalog, secret: CourseSecret | None) -> Setup:
    """How every submission is graded: the exercises named (an assignment's, or a library
    course's every one), the seed or the secret, the devices, time and confinement."""
    from grader.course.manifest import Setup

    exercise_ids: tuple[str, ...] = ()
    if args.exercise:
        exercise_ids = (args.exercise,)
    elif args.assignment:
        exercise_ids = tuple(e.id for e in catalog.load_assignment(args.assignment)[1])
    elif catalog.library() is not None:
        # a library course grades each repository on every exercise
        exercise_ids = tuple(catalog.ids())
    return Setup(
        exercise_ids=exercise_ids,
        assignment=args.assignment,
        seed=args.seed or 0,
        devices=devices(args.device),
        time_limit=args.time_limit,
        isolation=isolation_choice(args.isolation) or "landlock",
        secret=secret.value if secret else None,
    )


def _request(args: argparse.Namespace, setup: Setup) -> ClassRequest:
    from grader.course.class_batch import ClassRequest

    return ClassRequest(
        submissions=args.submissions,
        out=args.out,
        setup=setup,
        roster=args.roster,
        names=args.names,
        shard=args.shard,
        resume=args.resume,
        force=args.force,
        jobs=args.jobs,
        columns=args.gradebook_columns,
        column=args.column,
    )


def _say_plan(args: argparse.Namespace, plan: ClassPlan) -> None:
    """Who will be graded, and who is left out, and why."""
    entries, todo, klass = plan.entries, plan.todo, plan.klass
    shard = f", {plan.manifest.label}" if args.shard else ""
    done = f" ({len(entries) - len(todo)} already done)" if args.resume else ""
    print(
        f"{len(entries)} students in {args.submissions} ({klass.names} names{shard}); grading "
        f"{len(todo)} with {plan.workers} workers{done}"
    )
    if klass.ignored:
        print(
            f"skipped, not a submission in {klass.names} names: {_few(klass.ignored)}",
            file=sys.stderr,
        )
    if klass.marked_late:
        print(
            "marked late in the download (Canvas's _LATE), graded as any other (a batch applies "
            "no late policy; summary.html lists them): "
            f"{_few(list(klass.marked_late))}",
            file=sys.stderr,
        )
    if klass.not_on_roster:
        print(
            f"not on the roster, kept apart and not graded: {_few(klass.not_on_roster)}",
            file=sys.stderr,
        )


def _say_graded(args: argparse.Namespace, graded: ClassGraded) -> int:
    """What came of the batch, and its exit code: 3 for any grader error or a student left
    without a report, 2 for a class mostly missing."""
    tally, elapsed = graded.tally, graded.seconds
    rate = len(graded.plan.todo) / elapsed if elapsed else 0
    print(
        f"graded {tally.graded}, unreadable {tally.unreadable}, missing {tally.missing}, grader "
        f"errors {len(tally.grader_errors)} in {elapsed:.1f} s ({rate:.1f} per second); "
        f"{len(graded.files.rows)} students in {args.out}"
    )
    mostly_missing = _report_class(graded.files.summary, args.out)
    if graded.unfinished:
        print(
            f"{graded.unfinished} students have no report (their worker died): run again with "
            "--resume",
            file=sys.stderr,
        )
    for error in tally.grader_errors:
        print(f"grader error: {error}", file=sys.stderr)
    if tally.grader_errors or graded.unfinished:
        return ExitCode.INTERNAL_ERROR
    return ExitCode.USAGE_ERROR if mostly_missing else ExitCode.OK


def _secret(args: Any, catalog: Catalog) -> CourseSecret | None:
    """The course secret the seeds are drawn from; None
    with --seed (one seed for all) or where there is none."""
    from grader.course.secret import find_secret

    if args.seed is not None:
        if args.secret_file is not None:
            raise GraderError(
                "--seed gives every submission one seed, --secret-file draws one per submission: "
                "choose one."
            )
        return None
    return find_secret(args.secret_file, catalog.root)


def _say_seeds(seed: int, secret: CourseSecret | None, catalog: Catalog) -> None:
    """Which seeds the batch grades with: an instructor
    must know when every submission got the same inputs."""
    from grader.course.secret import default_path

    if secret is not None:
        print(
            f"seeds: one per submission, drawn from the course secret {secret.path} (id "
            f"{secret.id}); each report shows a token, and grade seed TOKEN --secret-file "
            f"{secret.path} gives its seed"
        )
        return
    print(
        f"seeds: {seed} for every submission"
        + (
            ", the seed a student's own grade uses by default: a student who tables the answers "
            "to its public inputs scores them"
            if seed == 0
            else ""
        )
        + f". For a seed per submission, make a course secret: grade seed "
        f"--new-secret {default_path(catalog.root)}",
        file=sys.stderr,
    )


def _few(items: tuple[str, ...] | list[str], limit: int = 8) -> str:
    from grader.course.lms.downloads import few

    return few(items, limit)


def _report_class(summary: Any, out: Path) -> bool:
    """The class's mean (the summary's, the one definition) and who needs
    attention, in a few lines; whether most of the class has no submission
    (the gradebook would be mostly zeros: not a batch to exit 0 on)."""
    from grader.outputs.html_page import num

    scores, counts = summary["scores"], summary["counts"]
    if scores["mean"] is not None:
        print(
            f"mean score {num(scores['mean'])} of {num(scores['max_score'])} over the "
            f"{scores['scored']} students the gradebook scores (grader errors left out); class "
            f"summary: {out / 'summary.html'}; gradebook: {out / 'gradebook.csv'}"
        )
    for group in summary["attention"]:
        names = [
            f["name"]
            if f["name"] == f["student"] or not f["student"]
            else f"{f['name']} ({f['student']})"
            for f in group["students"]
        ]
        print(f"needs attention: {group['title'].lower()} ({len(names)}): {_few(names)}")
    mostly_missing: bool = 2 * counts["missing"] > counts["students"]
    if mostly_missing:
        print(
            f"error: {counts['missing']} of the {counts['students']} students have no submission: "
            "the gradebook would be mostly zeros. Check the submissions folder, --names and the "
            "roster's ids (docs/lms-downloads.md).",
            file=sys.stderr,
        )
    return mostly_missing


class _progress:
    """A progress bar on a terminal; a plain line per student in a CI log."""

    def __init__(self, total: int) -> None:
        self.total, self.count = total, 0
        self.bar: Any = None

    def __enter__(self) -> Callable[[Done], None]:
        if sys.stdout.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("grading", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            self.bar.start()
            self.task = self.bar.add_task("grading", total=self.total)
        return self.step

    def step(self, done: Done) -> None:
        self.count += 1
        if self.bar is not None:
            self.bar.advance(self.task)
            return
        width = len(str(self.total))
        score = f"{done.score:g}/{done.max_score:g}" if done.outcome != "grader-error" else "-"
        print(
            f"[{self.count:>{width}}/{self.total}] {done.student}  {score}  {done.outcome}  "
            f"{done.seconds:.2f} s",
            flush=True,
        )

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def merge_parser() -> Parser:
    parser = Parser(
        prog="grade merge",
        description="Join the report folders of every shard of one `grade batch --shard` into one "
        "gradebook and summary. Refuses (exit 2) shards graded differently, a shard given "
        "twice or missing, and a shard whose students did not all finish.",
    )
    parser.add_argument("folders", type=Path, nargs="+", metavar="REPORTS")
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR")
    add_exercises_option(parser)
    return parser


def merge_command(argv: list[str]) -> int:
    args = merge_parser().parse_args(argv)
    from grader.course import classfiles

    try:
        catalog: Catalog | None = Catalog.find(args.exercises)
    except GraderError:
        catalog = None  # points possible then come from the reports themselves
    made = classfiles.merge(args.folders, args.out, catalog)
    print(f"merged {len(made.rows)} students from {len(args.folders)} shards into {args.out}")
    return ExitCode.USAGE_ERROR if _report_class(made.summary, args.out) else ExitCode.OK


def feedback_parser() -> Parser:
    parser = Parser(
        prog="grade feedback",
        description="Write again each student's feedback.html (the page they read, offline) from "
        "the report.json files of a batch's REPORTS folder.",
    )
    parser.add_argument("reports", type=Path, metavar="REPORTS")
    return parser


def feedback_command(argv: list[str]) -> int:
    args = feedback_parser().parse_args(argv)
    from grader.course.classfiles import rebuild_feedback

    written = rebuild_feedback(args.reports)
    print(f"wrote {written} feedback pages under {args.reports / 'students'}")
    return ExitCode.OK


def publish_parser() -> Parser:
    parser = Parser(
        prog="grade publish",
        description="Send a batch's scores to the LMS. lti: each student's LTI 1.3 AGS "
        "Score to the assignment's own line item: --lineitem, else the one "
        "the platform's line items service (lineitems in --platform, a "
        "TOML file: client_id, token_url, key_file, key_id, lineitems) "
        "holds for it, found by resourceId or made. What was sent is "
        "recorded per line item in REPORTS/published/lti.json: publishing "
        "again sends only the scores that changed.",
    )
    parser.add_argument("service", choices=("lti",))
    parser.add_argument("reports", type=Path, metavar="REPORTS")
    parser.add_argument("--platform", type=Path, required=True, metavar="CONFIG")
    parser.add_argument(
        "--lineitem", metavar="URL", help="the LMS column (its line item's URL) these scores go to"
    )
    parser.add_argument(
        "--assignment",
        metavar="ID",
        help="the column's resourceId, for a batch of several exercises graded "
        "without --assignment (default: the batch's assignment, or its one "
        "exercise)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would be sent, send nothing"
    )
    return parser


def publish_command(argv: list[str]) -> int:
    args = publish_parser().parse_args(argv)
    try:
        from grader.course.lms.platform import read_platform
        from grader.course.lms.publish import Target, publish_lti
    except ImportError as exc:  # PyJWT, cryptography and urllib3 are the [lti] extra
        raise GraderError(
            f"grade publish lti needs {exc.name}: pip install 'autograd-grader[lti]'."
        ) from None
    if args.lineitem is not None and urlsplit(args.lineitem).scheme not in ("http", "https"):
        raise GraderError(
            f"--lineitem {args.lineitem!r} is not an http(s) URL: give the line item's URL."
        )
    platform = read_platform(args.platform)
    target = Target(
        assignment=_batch_assignment(args.reports, args.assignment),
        lineitem=args.lineitem or "",
        source="--lineitem" if args.lineitem else "",
    )
    done = publish_lti(args.reports, platform, target, dry_run=args.dry_run)
    verb = "would send" if args.dry_run else "sent"
    print(
        f"{verb} {len(done.sent)} scores to {done.lineitem or target.assignment}'s column "
        f"({done.how}); {done.unchanged} unchanged since the last publish"
        + (f"; not sent (the grader failed on them): {_few(done.skipped)}" if done.skipped else "")
    )
    return ExitCode.OK


def _batch_assignment(reports: Path, given: str | None) -> str:
    """The assignment a batch's scores are: its column's resourceId in the LMS."""
    from grader.course.manifest import read_manifest
    from grader.outputs.layout import MANIFEST

    manifest = read_manifest(reports) if (reports / MANIFEST).is_file() else None
    graded = (manifest.assignment or manifest.column) if manifest is not None else None
    if given is not None and graded and given != graded:
        raise GraderError(
            f"--assignment {given!r}: {reports} graded assignment {graded!r}; its "
            f"scores go to {graded}'s column only."
        )
    if given or graded:
        return str(given or graded)
    if manifest is not None and len(manifest.exercises) == 1:
        return manifest.exercises[0]
    graded_what = ", ".join(manifest.exercises) if manifest is not None else "no batch.json"
    raise GraderError(
        f"which assignment are the scores of {reports}? It graded {graded_what}: "
        "name its column with --assignment ID (the line item's resourceId) or "
        "--lineitem URL."
    )


#: a class's commands, which grader.cli_commands lists
COMMANDS = {
    "batch": Command(batch_parser, batch_command),
    "merge": Command(merge_parser, merge_command),
    "feedback": Command(feedback_parser, feedback_command),
    "publish": Command(publish_parser, publish_command),
}
