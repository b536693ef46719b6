"""The one error type the person running `grade` can fix, and the exit codes."""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar


class ExitCode(IntEnum):
    """What `grade` returns to the shell; the report and the CLI pick from these only."""

    #: every check passed (or, for `validate`, every exercise is sound)
    OK = 0
    #: graded, and points were lost (or an exercise failed validation)
    CHECKS_FAILED = 1
    #: a problem the user can fix: unknown exercise, missing file, bad spec, bad arguments
    USAGE_ERROR = 2
    #: a bug in the grader itself
    INTERNAL_ERROR = 3
    #: stopped by Ctrl-C (128 + SIGINT, as shells report it)
    INTERRUPTED = 130
    #: the reader of the output went away (`grade list |
    #: head`): 128 + SIGPIPE, as a command killed by it reports
    PIPE_CLOSED = 141


class GraderError(Exception):
    """A problem the person running `grade` can fix; shown as one message, without a traceback.

    Student mistakes are never raised as this: they are results in the report.
    """

    exit_code: ClassVar[ExitCode] = ExitCode.USAGE_ERROR


class SpecError(GraderError):
    """An exercise spec that cannot be used; the message names file, line and field."""
