"""The course server's commands: serve, worker, tokens, roster, regrade,
gradebook and course check (the instructor's), and submit (the student's).
Each parses its arguments, calls grader.service and prints what came of it."""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.cli_options import Command, Parser, add_exercises_option
from grader.core.errors import ExitCode, GraderError

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from grader.core.library import Library
    from grader.service.config import Course

_COURSE_HELP = (
    "the course folder, holding course.toml (default: $AUTOGRADER_COURSE, else the current folder)"
)


def _course_option(parser: Parser) -> None:
    parser.add_argument("--course", type=Path, metavar="DIR", help=_COURSE_HELP)
    parser.add_argument(
        "--database",
        metavar="URL",
        help="the store: a PostgreSQL URL (default: $AUTOGRADER_DATABASE, else course.toml's "
        "database, else the course folder's SQLite file)",
    )


def _open(args: argparse.Namespace, durable: bool = True) -> tuple[Course, Engine]:
    from grader.service.config import find_course, load_course
    from grader.service.db.store import open_store

    folder = find_course(getattr(args, "course", None))
    course = load_course(
        folder, database=getattr(args, "database", None) or os.environ.get("AUTOGRADER_DATABASE")
    )
    return course, open_store(course.database, durable=durable)


def serve_parser() -> Parser:
    parser = Parser(
        prog="grade serve",
        description="Run the course server: the API grade submit talks to, the "
        "students' and instructor's pages, and grading workers.",
    )
    _course_option(parser)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default 8000; 0: any free port, printed)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="grading workers on this machine (default: the cores; 0: only grade worker elsewhere)",
    )
    parser.add_argument(
        "--lease",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a worker holds a job without a heartbeat before it is graded elsewhere",
    )
    tls = parser.add_argument_group("TLS and proxies (docs/deploy.md)")
    tls.add_argument(
        "--ssl-certfile", type=Path, metavar="PEM", help="serve HTTPS with this certificate (chain)"
    )
    tls.add_argument(
        "--ssl-keyfile", type=Path, metavar="PEM", help="the certificate's private key"
    )
    tls.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="IPS",
        help="believe X-Forwarded-For/-Proto only from these proxies (addresses or networks, "
        "comma-separated; default: from none)",
    )
    tls.add_argument(
        "--access-log", action="store_true", help="a line per request on standard output"
    )
    return parser


def serve_command(argv: list[str]) -> int:
    args = serve_parser().parse_args(argv)
    from grader.service.server import ServeOptions, serve

    course, engine = _open(args)
    secret = course.secret()
    workers = args.workers if args.workers is not None else max(os.cpu_count() or 1, 1)
    serve(
        course,
        engine,
        secret,
        ServeOptions(
            host=args.host,
            port=args.port,
            workers=workers,
            lease=args.lease,
            access_log=args.access_log,
            **tls_options(args.ssl_certfile, args.ssl_keyfile, args.forwarded_allow_ips),
        ),
    )
    return ExitCode.OK


def tls_options(certfile: Path | None, keyfile: Path | None, proxies: str) -> dict[str, Any]:
    """The TLS and proxy options, checked before anything
    starts: a certificate that does not load is named."""
    import ipaddress
    import ssl

    if keyfile is not None and certfile is None:
        raise GraderError("--ssl-keyfile needs --ssl-certfile (the certificate it is the key of).")
    if certfile is not None:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certfile, keyfile)
        except (OSError, ssl.SSLError) as exc:
            raise GraderError(
                f"--ssl-certfile {certfile}: cannot load the certificate and its key ({exc}). Both "
                f"are PEM files; the key may be inside the certificate's file or given with "
                f"--ssl-keyfile."
            ) from None
    for proxy in filter(None, (p.strip() for p in proxies.split(","))):
        try:
            ipaddress.ip_network(proxy)
        except ValueError:
            raise GraderError(
                f"--forwarded-allow-ips: {proxy!r} is not an address or a network (10.0.0.5, "
                f"10.0.0.0/8); name the proxy itself, and never '*'."
            ) from None
    return {"certfile": certfile, "keyfile": keyfile, "trusted_proxies": proxies.strip()}


def worker_parser() -> Parser:
    parser = Parser(
        prog="grade worker",
        description="Grade submissions from the course server's queue (its "
        "PostgreSQL), on this machine, until stopped (SIGTERM: after "
        "the job it holds).",
    )
    _course_option(parser)
    parser.add_argument(
        "--lease", type=float, default=30.0, metavar="SECONDS", help="a job's lease (default 30)"
    )
    parser.add_argument(
        "--scratch", type=Path, metavar="DIR", help="this worker's own scratch folder"
    )
    parser.add_argument(
        "--name", help="this worker's name on the instructor page (default: host-pid)"
    )
    parser.add_argument("--max-jobs", type=int, metavar="N", help="leave after N jobs")
    parser.add_argument(
        "--idle-exit", type=float, metavar="SECONDS", help="leave once the queue is empty this long"
    )
    parser.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--nice", type=int, default=0, help=argparse.SUPPRESS)
    return parser


def worker_command(argv: list[str]) -> int:
    args = worker_parser().parse_args(argv)
    from grader.service.work.worker import WorkerOptions, run_worker

    course, engine = _open(args, durable=False)
    run_worker(
        course,
        engine,
        WorkerOptions(
            lease=args.lease,
            scratch=args.scratch,
            name=args.name,
            parent=args.parent,
            max_jobs=args.max_jobs,
            idle_exit=args.idle_exit,
            nice=args.nice,
        ),
        say=lambda line: print(line, flush=True),
    )
    return ExitCode.OK


def tokens_parser() -> Parser:
    parser = Parser(
        prog="grade tokens",
        description="Issue each roster student a token for grade submit (stored "
        "hashed: the CSV written is the only copy), or revoke one.",
    )
    parser.add_argument(
        "roster", type=Path, nargs="?", help="the roster CSV (default: course.toml's roster)"
    )
    _course_option(parser)
    parser.add_argument(
        "--out",
        "-o",
        type=Path,
        metavar="FILE",
        help="write id,name,email,token here (default: standard output)",
    )
    parser.add_argument(
        "--again", action="store_true", help="new tokens for everyone listed (the old ones stop)"
    )
    parser.add_argument(
        "--instructor", metavar="ID", help="issue a token for this instructor instead"
    )
    parser.add_argument(
        "--revoke", metavar="ID", action="append", default=[], help="revoke a student's tokens"
    )
    return parser


def tokens_command(argv: list[str]) -> int:
    args = tokens_parser().parse_args(argv)
    from grader.course.roster import read_roster
    from grader.outputs.students import Student
    from grader.service import tokens

    course, engine = _open(args)
    if args.revoke:
        for student in args.revoke:
            count = tokens.revoke(engine, student)
            print(
                f"{student}: {count} token(s) revoked" if count else f"{student}: no live token",
                file=sys.stderr,
            )
        return ExitCode.OK
    if args.instructor:
        issued = tokens.issue(
            engine,
            [Student(id=args.instructor, name=args.instructor, submission="")],
            role="instructor",
            again=True,
        )
    else:
        roster = args.roster or course.roster
        if roster is None:
            raise GraderError(
                "which roster? grade tokens ROSTER.csv, or roster = \"...\" in course.toml."
            )
        issued = tokens.issue(engine, read_roster(roster).students, again=args.again)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")  # csv's own default is \r\n
    writer.writerow(["id", "name", "email", "token"])
    for student, token in issued:
        writer.writerow([student.id, student.name, student.email, token])
    if args.out is not None:
        descriptor = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    print(
        f"issued {len(issued)} token(s); students who already had one kept it (--again for new "
        "ones)",
        file=sys.stderr,
    )
    return ExitCode.OK


def regrade_parser() -> Parser:
    parser = Parser(
        prog="grade regrade",
        description="Grade every stored submission again (after an exercise "
        "changed), behind every new submission.",
    )
    _course_option(parser)
    parser.add_argument(
        "--assignment", "-a", metavar="ID", help="only this assignment's submissions"
    )
    return parser


def regrade_command(argv: list[str]) -> int:
    args = regrade_parser().parse_args(argv)
    from grader.service.work.queue import enqueue_all

    course, engine = _open(args)
    if args.assignment and args.assignment not in course.assignments:
        raise GraderError(f"no assignment {args.assignment!r} in course.toml.")
    print(f"queued {enqueue_all(engine, args.assignment)} submission(s) to grade again")
    return ExitCode.OK


def gradebook_parser() -> Parser:
    parser = Parser(
        prog="grade gradebook",
        description="Write an assignment's counted scores as a batch's reports "
        "folder (gradebook.csv, summary.html, each student's "
        "report), and publish them to the LMS over LTI AGS.",
    )
    _course_option(parser)
    parser.add_argument("assignment", help="the assignment (course.toml's id)")
    parser.add_argument(
        "--out", "-o", type=Path, metavar="DIR", help="default: server/gradebook/ASSIGNMENT"
    )
    parser.add_argument(
        "--publish",
        type=Path,
        metavar="LMS.TOML",
        help="then send the scores to the assignment's own column in this LMS (its "
        "line item: course.toml's [lti.lineitems], its link's launches, or "
        "found or made in the registration's lineitems)",
    )
    parser.add_argument(
        "--release-hidden",
        action="store_true",
        help="with --publish: send the scores of students whose deadline has not "
        "passed too, telling them what the hidden checks gave (default: held "
        "back until their deadline)",
    )
    return parser


def gradebook_command(argv: list[str]) -> int:
    args = gradebook_parser().parse_args(argv)
    from grader.service.deadlines import stored_course
    from grader.service.gradebook import export

    course, engine = _open(args)
    _not_held(course, engine)
    # the deadlines and corrections the pages set: what the server counts
    course = stored_course(engine, course)
    rules = course.assignments.get(args.assignment)
    if rules is None:
        raise GraderError(f"no assignment {args.assignment!r} in course.toml.")
    folder, files = export(engine, course, rules, args.out)
    print(f"wrote {folder}: {len(files.rows)} students (gradebook.csv, summary.html)")
    if args.publish is not None:
        from grader.course.lms.platform import read_platform
        from grader.service.lti import columns

        platform = read_platform(args.publish)
        early = columns.before_deadline(engine, course, rules)
        if early.held and args.release_hidden:
            print(
                f"releasing the hidden checks' results of {len(early.held)} of {early.students} "
                "students whose deadline has not passed (--release-hidden)"
            )
        published = columns.publish(
            engine, course, rules, platform, release_hidden=args.release_hidden, folder=folder
        )
        print(f"published: {columns.said(published)}")
        if published.held:
            print(
                "held back: "
                f"{', '.join(published.held[:8])}{' ...' if len(published.held) > 8 else ''}: "
                "their scores would tell them what the hidden checks gave. Publish again after "
                "their deadline, or now with --release-hidden."
            )
    return ExitCode.OK


def _not_held(course: Course, engine: Engine) -> None:
    """Refuse to count by a course.toml whose edit the course's server holds until an
    instructor confirms it (it moves a deadline into the past): the server counts by the
    rules in force, and this command reads the file."""
    from grader.service.config import CONFIG
    from grader.service.policy.confirmation import held_edit

    path = course.folder / CONFIG
    held = held_edit(engine, path.read_bytes())
    if held is not None:
        raise GraderError(
            f"{path}: the course server holds this edit until an instructor confirms it: it moves "
            f"a deadline into the past, which releases the hidden checks' results ({held}). "
            "Nothing was written or sent. Confirm it on /instructor/deadlines, or fix the date in "
            "course.toml, then run this again."
        )


def course_parser() -> Parser:
    parser = Parser(
        prog="grade course",
        description="grade course check: read course.toml as grade serve does and "
        "say what each assignment is (what it grades, how students "
        "submit, its deadline and close, its late policy), or what is "
        "wrong with it: the file, the line and the fix.",
    )
    parser.add_argument(
        "action", choices=("check",), help="check: read and check course.toml, change nothing"
    )
    parser.add_argument("--course", type=Path, metavar="DIR", help=_COURSE_HELP)
    return parser


def course_command(argv: list[str]) -> int:
    args = course_parser().parse_args(argv)
    from grader.service.config import find_course, load_course
    from grader.service.policy.course_check import report

    print("\n".join(report(load_course(find_course(args.course)))))
    return ExitCode.OK


def roster_parser() -> Parser:
    parser = Parser(
        prog="grade roster",
        description="grade roster sync: the course's students from the LMS's Names "
        "and Roles service, every linked context's (course.toml's [lti] "
        "context_id): new ones added, names and LTI ids brought up to "
        "date, those linked by the id kind [lti] link_by names, and "
        "those no linked context lists any more removed (their sign-in "
        "ends, their tokens are revoked, their submissions stay).",
    )
    parser.add_argument(
        "action", choices=("sync",), help="sync: fetch the membership and update the roster"
    )
    _course_option(parser)
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="say what would change, removals first, and change nothing",
    )
    return parser


def roster_command(argv: list[str]) -> int:
    args = roster_parser().parse_args(argv)
    from grader.service.lti.lti_roster import sync_roster

    course, engine = _open(args)
    if course.lti is None:
        raise GraderError(
            f"{course.folder / 'course.toml'}: no [lti] table, so no LMS to ask; docs/server.md "
            f"(Students from the LMS) shows one."
        )
    done = sync_roster(engine, course.lti, dry_run=args.dry_run)
    would = "would be " if args.dry_run else ""
    contexts = (
        f" of {len(done.contexts)} linked LMS context(s) ({', '.join(done.contexts)})"
        if done.contexts
        else ""
    )
    print(f"{done.members} member(s) on {done.pages} page(s) of the LMS's lists{contexts}")
    # removals first: what a sync takes away is what to read before running it for real
    for label, ids in (
        ("removed (sign-in ended, tokens revoked)", done.removed),
        ("added", done.added),
        ("linked", done.linked),
        ("updated", done.updated),
    ):
        if ids:
            print(f"{would}{label}: {_listed(ids)}")
    if done.refused:
        print(f"refused, a collision for you to sort out: {_listed(done.refused)}")
    if done.skipped:
        print(f"skipped: {_listed(done.skipped)}")
    return ExitCode.OK


def _listed(ids: list[str]) -> str:
    return ", ".join(ids[:10]) + (f", ... ({len(ids)})" if len(ids) > 10 else "")


def submit_parser() -> Parser:
    parser = Parser(
        prog="grade submit",
        description="Submit a file to the course server: a receipt once it is "
        "stored, then the report of its public checks.",
    )
    parser.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="the .py file or notebook to submit; for a course that grades a whole repository, its "
        "folder (or an archive of it): only the course's files are sent",
    )
    _add_what_to_ask(parser)
    _add_server_options(parser)
    return parser


def _add_what_to_ask(parser: Parser) -> None:
    """What to send, or what to ask the server instead."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--exercise",
        "-e",
        metavar="ID",
        help="the exercise (default: the file's '# exercise:' line)",
    )
    which.add_argument(
        "--assignment", "-a", metavar="ID", help="the assignment (a notebook answering several)"
    )
    which.add_argument(
        "--status", action="store_true", help="deadlines, submissions left today, what counts"
    )
    which.add_argument(
        "--history", action="store_true", help="every submission the server holds of yours"
    )
    which.add_argument(
        "--login", action="store_true", help="a one-time link to your page on the server"
    )


def _add_server_options(parser: Parser) -> None:
    """How long to wait and what to print; which server, and how it is trusted."""
    parser.add_argument("--no-wait", action="store_true", help="print the receipt and leave")
    parser.add_argument(
        "--wait",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="how long to wait for the report (default 600)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print what the server answered, as JSON"
    )
    add_exercises_option(parser)
    parser.add_argument(
        "--ca-file",
        type=Path,
        metavar="PEM",
        help="verify an https server against these certificates (default: $AUTOGRADER_CA_FILE, "
        "else the system's)",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="the course server (default: $AUTOGRADER_SERVER, else the "
        "grade-course.toml of the pack you were given, in a folder "
        "of yours)",
    )
    parser.add_argument(
        "--new-server",
        action="store_true",
        help="send your token to a server other than the one it was first sent to (your course "
        "moved); refused without it",
    )


def submit_command(argv: list[str]) -> int:
    args = submit_parser().parse_args(argv)
    import json

    from grader.service import client

    where = client.settings(ca_file=args.ca_file, server=args.server)
    # refused: another server than the token's first
    said = client.bind(where, new_server=args.new_server)
    print(
        f"Sending to {where.server} (from {where.source})" + (f" {said}" if said else ""),
        file=sys.stderr,
    )
    if args.status or args.history or args.login:
        if args.login:
            _, found = client.call(where, "POST", "/api/login-link", b"")
            print(
                "Send this link to no one: it signs in as you whoever opens it. Open it within 5 "
                f"minutes (once), and sign in on its page:\n{found['url']}"
            )
            return ExitCode.OK
        _, found = client.call(
            where,
            "GET",
            "/api/status" if args.status else "/api/history",
            headers=client.pack_header(Path.cwd()) if args.status else None,
        )
        print(json.dumps(found, indent=2) if args.json else client.listing(found, args.status))
        if args.status and not args.json:
            sys.stdout.write(client.stale_text(found))
        return ExitCode.OK
    if args.file is None:
        raise GraderError("grade submit FILE: which file? (or --status, --history, --login)")
    receipt = client.upload(
        where, args.file, args.exercise, args.assignment, library=_library_of(args)
    )
    sys.stdout.write(client.receipt_text(receipt) + client.stale_text(receipt))
    sys.stdout.flush()
    if args.no_wait:
        return ExitCode.OK
    found = client.wait_for(where, int(receipt["submission"]), args.wait)
    if args.json:
        print(json.dumps(found, indent=2))
        return ExitCode.OK
    text, code = client.report_text(
        found, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ
    )
    sys.stdout.write(text)
    return code


def _library_of(args: argparse.Namespace) -> Library | None:
    """A library course's package settings, where a
    repository (a folder or an archive) is submitted to one."""
    from grader.judge.catalog import Catalog
    from grader.run.read.package import is_package

    if not is_package(args.file):
        return None
    library = Catalog.find(args.exercises).library()
    if library is None:
        raise GraderError(
            f"{args.file}: this course grades one file (a .py file or a notebook), not a folder or "
            "an archive; submit the file itself."
        )
    return library


#: the course server's commands, which grader.cli_commands lists
COMMANDS = {
    "serve": Command(serve_parser, serve_command),
    "submit": Command(submit_parser, submit_command),
    "tokens": Command(tokens_parser, tokens_command),
    "worker": Command(worker_parser, worker_command),
    "regrade": Command(regrade_parser, regrade_command),
    "gradebook": Command(gradebook_parser, gradebook_command),
    "roster": Command(roster_parser, roster_command),
    "course": Command(course_parser, course_command),
}
