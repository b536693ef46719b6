"""`grade`: pick the command and run it, and turn every error into an exit code, caught here once.

`grade FILE` grades one submission (grader.cli_file). Every other command is named in the table of
grader.cli_commands, and runs from its module's own table: grader.cli_course (the course's
commands), cli_batch (a class's), cli_service (the course server's) and cli_store (its store). Each
parses its arguments, calls the library and prints what came of it.
"""

from __future__ import annotations

import difflib
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from grader import __version__
from grader.cli_commands import COMMANDS, command
from grader.core.errors import ExitCode, GraderError


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and "_ARGCOMPLETE" in os.environ:
        # the shell asks for completions: answer, then exit
        from grader.cli_complete import complete

        complete()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(args)
    except GraderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (grade list | head): nothing is wrong, and what is left to print
        # has nowhere to go. Point stdout at nothing, so that the interpreter's own flush at exit
        # does not complain again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.PIPE_CLOSED
    except Exception:  # noqa: BLE001 - a bug in the grader: show everything
        traceback.print_exc()
        print(
            f"error: internal error in autograd-grader {__version__}; please report it with the "
            "traceback above.",
            file=sys.stderr,
        )
        return ExitCode.INTERNAL_ERROR


def _run(args: list[str]) -> int:
    """The command the first word names, else grading one submission."""
    if args and args[0] in COMMANDS:
        name = args.pop(0)
        return command(name).run(args)
    if args:
        _not_a_command(args[0])
    from grader.cli_file import grade_command

    return grade_command(args)


def _not_a_command(word: str) -> None:
    """A first word that is neither a command nor a file but reads like a mistyped command: say
    which one."""
    if word.startswith("-") or Path(word).exists():
        return
    close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    if close:
        raise GraderError(
            f"{word}: no such command or file. Did you mean 'grade {close[0]}'? "
            f"'grade --help' lists the commands."
        )
