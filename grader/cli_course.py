"""The course commands of `grade`: list, new, schema, validate, release, export
and seed. Each parses its arguments, calls the library and prints what came of it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from grader.cli_options import (
    Command,
    Parser,
    add_device_option,
    add_exercises_option,
    add_secret_option,
    check_device,
    devices,
)
from grader.core.errors import ExitCode, GraderError
from grader.judge.catalog import Catalog


def list_parser() -> Parser:
    parser = Parser(prog="grade list", description="List the exercises.")
    add_exercises_option(parser)
    return parser


def list_command(argv: list[str]) -> int:
    args = list_parser().parse_args(argv)
    catalog = Catalog.find(args.exercises)
    exercises = catalog.load_all()
    width = max((len(e.id) for e in exercises), default=0)
    for exercise in exercises:
        print(f"{exercise.id.ljust(width)}  {exercise.points:>4g} pts  {exercise.title}")
    if not exercises:
        print(f"no exercises in {catalog.root}")
    for assignment_id in catalog.assignment_ids():
        assignment, members = catalog.load_assignment(assignment_id)
        print(
            f"assignment {assignment.id}: {assignment.title} ({', '.join(e.id for e in members)})"
        )
    return ExitCode.OK


def new_parser() -> Parser:
    parser = Parser(
        prog="grade new",
        description="Start an exercise: exercise.yaml, starter.py, solution.py and mutants/ with "
        "one example, each marked TODO(grade new) where there is still something to write. "
        "Then 'grade validate ID' says what is left.",
    )
    parser.add_argument("id", metavar="ID", help="the new exercise's id (its folder's name)")
    parser.add_argument("--like", metavar="EXISTING", help="start from a copy of this exercise")
    parser.add_argument(
        "--engine",
        choices=("scalar", "torch"),
        default="scalar",
        help="without --like: a scalar engine exercise (the default) or a PyTorch one",
    )
    add_exercises_option(parser)
    return parser


def new_command(argv: list[str]) -> int:
    args = new_parser().parse_args(argv)
    from grader.course.scaffold import new_exercise

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


def schema_parser() -> Parser:
    parser = Parser(
        prog="grade schema",
        description="Print the JSON Schema every exercise.yaml is checked against (or an "
        "assignment's). Save it and start a spec with '# yaml-language-server: $schema=PATH', "
        "and editors complete and check it.",
    )
    parser.add_argument("kind", nargs="?", choices=("exercise", "assignment"), default="exercise")
    return parser


def schema_command(argv: list[str]) -> int:
    args = schema_parser().parse_args(argv)
    from grader.judge.spec_yaml import schema_text

    sys.stdout.write(schema_text(args.kind))
    return ExitCode.OK


def validate_parser() -> Parser:
    from grader.course.fairness import VARIANT_SEEDS

    parser = Parser(
        prog="grade validate",
        description="Prove exercises sound: oracles agree, the solution scores full marks, "
        "every mutant loses points; and fair: every correct answer of variants/ "
        "scores full marks, unnamed, at every seed.",
    )
    parser.add_argument("ids", nargs="*", metavar="ID", help="exercises to validate (default: all)")
    parser.add_argument("--seeds", type=int, default=3, help="how many seeds to try (default 3)")
    parser.add_argument(
        "--variant-seeds",
        type=int,
        default=VARIANT_SEEDS,
        metavar="N",
        help=f"how many seeds each correct answer of variants/ is graded at (default "
        f"{VARIANT_SEEDS})",
    )
    add_device_option(parser)
    add_exercises_option(parser)
    return parser


def validate_command(argv: list[str]) -> int:
    args = validate_parser().parse_args(argv)
    if args.seeds < 1 or args.variant_seeds < 1:
        raise GraderError(
            f"--seeds and --variant-seeds must be at least 1, got {args.seeds} and "
            f"{args.variant_seeds}."
        )
    from grader.course.validate import validate_exercise
    from grader.run.sandbox import Sandbox

    catalog = Catalog.find(args.exercises)
    check_device(args.device)
    exercises = [catalog.load(i) for i in args.ids] if args.ids else catalog.load_all()
    failed = 0
    with Sandbox(hide=[catalog.root]) as sandbox:
        for exercise in exercises:
            validation = validate_exercise(
                exercise,
                sandbox,
                list(range(args.seeds)),
                devices(args.device),
                range(args.variant_seeds),
            )
            failed += not validation.ok
            print(f"{'ok  ' if validation.ok else 'FAIL'} {exercise.id}")
            for finding in validation.findings:
                print(f"     {'✓' if finding.ok else '✗'} {finding.text}")
    print(f"{len(exercises) - failed} of {len(exercises)} exercises sound")
    return ExitCode.CHECKS_FAILED if failed else ExitCode.OK


def release_parser() -> Parser:
    parser = Parser(
        prog="grade release",
        description="Write the pack a course hands out: each exercise's starter as .py and .ipynb, "
        "assignment notebooks, and the public checks; no solutions, mutants or hidden "
        "checks.",
    )
    parser.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="exercises to release (default: all, and every assignment)",
    )
    parser.add_argument(
        "--assignment",
        "-a",
        action="append",
        default=[],
        metavar="ID",
        help="an assignment to release as one notebook (repeatable)",
    )
    parser.add_argument(
        "--out", "-o", type=Path, required=True, metavar="DIR", help="where to write the pack"
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="the course server's address, for grade submit (written to the pack's "
        "grade-course.toml)",
    )
    parser.add_argument(
        "--course",
        type=Path,
        metavar="DIR",
        help="the course server's folder (course.toml): the README's grade submit lines name its "
        "assignments (default: $AUTOGRADER_COURSE, if set)",
    )
    add_exercises_option(parser)
    return parser


def release_command(argv: list[str]) -> int:
    args = release_parser().parse_args(argv)
    from grader.course.pack.release import release

    catalog = Catalog.find(args.exercises)
    everything = not args.ids and not args.assignment
    ids = catalog.ids() if everything else args.ids
    assignments = catalog.assignment_ids() if everything else args.assignment
    written = release(
        catalog, args.out, ids, assignments, server=args.server, submitted=_submitted(args.course)
    )
    print(
        f"wrote {len(written)} files to {args.out}: {len(ids)} exercises, {len(assignments)} "
        "assignments"
    )
    return ExitCode.OK


def _submitted(course: Path | None) -> list[tuple[str, tuple[str, ...], str | None]]:
    """The course server's assignments, as the pack's README
    names them: from --course, else $AUTOGRADER_COURSE."""
    folder = course or (
        Path(os.environ["AUTOGRADER_COURSE"]) if os.environ.get("AUTOGRADER_COURSE") else None
    )
    if folder is None:
        return []
    from grader.service.config import find_course, load_course

    rules = load_course(find_course(folder)).assignments.values()
    return [(r.id, r.exercise_ids, r.catalog_assignment) for r in rules]


def export_parser() -> Parser:
    parser = Parser(
        prog="grade export",
        description="Write what runs the grader on a platform. gradescope: setup.sh and "
        "run_autograder (and autograder.zip with them, the grader and the exercises).",
    )
    parser.add_argument("platform", choices=("gradescope",))
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--exercise", "-e", metavar="ID")
    which.add_argument("--assignment", "-a", metavar="ID")
    seeding = parser.add_mutually_exclusive_group()
    seeding.add_argument(
        "--seed",
        type=int,
        help="one seed for every submission, instead of one drawn per submission "
        "from the course secret",
    )
    seeding.add_argument(
        "--secret-file",
        type=Path,
        metavar="FILE",
        help="the course secret the autograder draws seeds from (default: course-secret beside "
        "the exercises folder, where grade serve keeps it, if it exists, else a fresh one)",
    )
    add_exercises_option(parser)
    return parser


def export_command(argv: list[str]) -> int:
    args = export_parser().parse_args(argv)
    from grader.course.pack.export import SECRET_IN_EXPORT, export_gradescope
    from grader.course.secret import find_secret

    catalog = Catalog.find(args.exercises)
    secret = find_secret(args.secret_file, catalog.root) if args.seed is None else None
    zipped = export_gradescope(
        catalog,
        args.out,
        exercise=args.exercise,
        assignment=args.assignment,
        seed=args.seed,
        secret=secret,
    )
    print(
        f"wrote {args.out / 'setup.sh'}, {args.out / 'run_autograder'} and {zipped}: upload the "
        "zip as the assignment's autograder"
    )
    if args.seed is None:
        kept = args.out / SECRET_IN_EXPORT
        source = f"the course secret {secret.path}" if secret else "a fresh secret"
        print(
            f"seeds: one per submission, drawn from {source}, in the zip as {SECRET_IN_EXPORT}; "
            f"keep {kept}: grade seed TOKEN --secret-file {kept} turns a report's token into its "
            "seed"
        )
    else:
        print(f"seeds: {args.seed} for every submission", file=sys.stderr)
    return ExitCode.OK


def seed_parser() -> Parser:
    parser = Parser(
        prog="grade seed",
        description="Turn a report's seed token back into its seed, with the course secret; or "
        "make the course secret, from which a batch and the exported autograder draw each "
        "submission's seed.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("token", nargs="?", metavar="TOKEN", help="a report's seed token (s1-...)")
    what.add_argument(
        "--new-secret",
        nargs="?",
        const="",
        type=str,
        metavar="FILE",
        help="write a fresh course secret to FILE (default: course-secret beside the exercises "
        "folder); an existing one is never replaced",
    )
    add_secret_option(parser, "the one the reports were graded with")
    add_exercises_option(parser)
    return parser


def seed_command(argv: list[str]) -> int:
    args = seed_parser().parse_args(argv)
    from grader.core.seeds import seed_from_token
    from grader.course.secret import default_path, find_secret, write_new_secret

    if args.new_secret is not None:
        path = (
            Path(args.new_secret)
            if args.new_secret
            else default_path(Catalog.find(args.exercises).root)
        )
        made = write_new_secret(path)
        print(
            f"wrote a course secret to {made.path} (id {made.id}), readable by you alone. Keep it, "
            "and keep it out of what students see (a public repository included): grade batch and "
            "grade export draw each submission's seed from it, and only it turns a report's token "
            "back into its seed."
        )
        return ExitCode.OK
    secret = find_secret(
        args.secret_file, Catalog.find(args.exercises).root if args.secret_file is None else Path()
    )
    if secret is None:
        raise GraderError(
            "no course secret: pass --secret-file FILE, the secret the reports were graded with."
        )
    try:
        seed = seed_from_token(secret.value, args.token)
    except ValueError as exc:
        raise GraderError(f"{exc}.") from None
    print(
        f"{seed}\n(grade FILE --seed {seed} grades the submission as the report did; grade FILE "
        f"--secret-file {secret.path} draws the same seed from the file itself)"
    )
    return ExitCode.OK


#: the course's commands, which grader.cli_commands lists
COMMANDS = {
    "list": Command(list_parser, list_command),
    "new": Command(new_parser, new_command),
    "schema": Command(schema_parser, schema_command),
    "validate": Command(validate_parser, validate_command),
    "release": Command(release_parser, release_command),
    "export": Command(export_parser, export_command),
    "seed": Command(seed_parser, seed_command),
}
