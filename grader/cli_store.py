"""`grade store backup|restore|copy`: keep and move a course's store. Each parses its arguments,
calls grader.service.db.backup or grader.service.db.store_copy and prints what the store holds."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from grader.cli_options import Command, Parser
from grader.cli_service import _course_option as course_option
from grader.core.errors import ExitCode, GraderError

_ABOUT = {
    "backup": "write a consistent copy of the store to DEST while the server runs (SQLite: a "
    "SQLite file; PostgreSQL: a pg_dump custom-format file)",
    "restore": "put a backup back as the course's store (refused if the store holds anything, "
    "unless --force)",
    "copy": "copy every row of the store (submissions, results, tokens, ...) into an empty "
    "database, e.g. from SQLite to PostgreSQL; students keep their tokens",
}


def store_parser() -> Parser:
    parser = Parser(
        prog="grade store",
        description="Keep and move a course's store: "
        + "; ".join(f"{name}: {about}" for name, about in _ABOUT.items())
        + ".",
    )
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="{backup,restore,copy}", parser_class=Parser
    )
    backup = actions.add_parser(
        "backup",
        help=_ABOUT["backup"],
        description=_ABOUT["backup"] + ". Every receipt "
        "given before the copy's snapshot is taken is in it.",
    )
    backup.add_argument(
        "dest", type=Path, help="the backup's file (replaced once the new copy is whole)"
    )
    restore = actions.add_parser(
        "restore",
        help=_ABOUT["restore"],
        description=_ABOUT["restore"] + ". Stop the server and its workers first.",
    )
    restore.add_argument("source", type=Path, help="a file written by grade store backup")
    restore.add_argument(
        "--force", action="store_true", help="replace a store that holds submissions or students"
    )
    copy = actions.add_parser(
        "copy",
        help=_ABOUT["copy"],
        description=_ABOUT["copy"] + ". Stop the server and its "
        "workers first; then point course.toml's database at the target.",
    )
    copy.add_argument(
        "--to",
        required=True,
        metavar="URL",
        help="the empty target, e.g. postgresql://grader@db.example.edu/autograd (the password in "
        "~/.pgpass or $PGPASSWORD, not in the URL)",
    )
    for sub in (backup, restore, copy):
        course_option(sub)
    return parser


def store_command(argv: list[str]) -> int:
    args = store_parser().parse_args(argv)
    from grader.service.config import find_course, load_course
    from grader.service.db.store import open_store, shown_url

    folder = find_course(args.course)
    if args.action == "restore":  # a course restored on a new machine: all it lacks, said at once
        from grader.service.db.course_files import missing

        gaps = missing(folder)
        if gaps:
            listed = "\n  ".join(gaps)
            raise GraderError(
                f"{folder} lacks what the course needs beside its store; copy these "
                f"from where the course ran (docs/deploy.md, Backups), then restore:"
                f"\n  {listed}"
            )
    course = load_course(folder, database=args.database or os.environ.get("AUTOGRADER_DATABASE"))
    where = shown_url(course.database)
    if args.action == "backup":
        from grader.service.db.backup import backup

        # not migrated: a backup reads the store as its running server wrote it
        found = backup(open_store(course.database, migrate_now=False), args.dest)
        print(f"backed up {where} to {args.dest}: {found.line()}")
    elif args.action == "restore":
        from grader.service.db.backup import restore

        done = restore(open_store(course.database), args.source, force=args.force)
        print(
            f"restored {args.source} into {where}: {done.snapshot.line()}. Start grade serve: what "
            "was queued or being graded at the backup is graded again."
        )
        # a restore never revives a credential: what the
        # store held of them is applied again, and said
        print(
            "credentials: "
            + (
                "; ".join(done.credentials)
                if done.credentials
                else "none changed (the store replaced held none the backup lacked)"
            )
        )
    else:
        from grader.service.db.store_copy import copy_store

        source, target = open_store(course.database), open_store(args.to)
        print(f"copying {where} to {shown_url(args.to)}", file=sys.stderr)
        copied = copy_store(source, target, say=lambda line: print(line, file=sys.stderr))
        print(
            f"copied {sum(copied.values())} row(s) of {len(copied)} table(s) to "
            f"{shown_url(args.to)}. Now set database = \"{shown_url(args.to)}\" in course.toml (or "
            "$AUTOGRADER_DATABASE) and start grade serve."
        )
    return ExitCode.OK


#: the store's command, which grader.cli_commands lists
COMMANDS = {
    "store": Command(store_parser, store_command),
}
