"""Shell completion for `grade` (argcomplete): commands,
options, exercise and assignment ids, and files.

Set up once with `eval "$(register-python-argcomplete grade)"` in ~/.bashrc (zsh: the same
after `autoload -U bashcompinit && bashcompinit`). The shell runs `grade` with _ARGCOMPLETE set.
`cli.main` then calls `complete()`, which writes the completions and exits before anything else
runs.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from typing import Any

from grader.cli_commands import COMMANDS, command
from grader.cli_file import grade_parser
from grader.core.errors import GraderError

Completer = Callable[..., Iterable[str]]


def complete() -> None:
    """Answer the shell's completion request and exit. Outside one (no _ARGCOMPLETE), do nothing."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete
    except ImportError:
        # an install without it: no completions, and no grading run by the shell either
        raise SystemExit(1) from None

    argcomplete.autocomplete(
        completion_parser(_words_before_cursor()), always_complete_options="long"
    )


def completion_parser(words: list[str]) -> argparse.ArgumentParser:
    """The parser whose completions fit what is typed: a command's, once one is named, else
    grading's, whose first word may also be a command."""
    name = words[0] if len(words) > 1 and words[0] in COMMANDS else None
    if name is None:
        parser: argparse.ArgumentParser = grade_parser()
        _with_completers(parser, submission=_commands_or_files(tuple(COMMANDS)))
        return parser
    root = argparse.ArgumentParser(prog="grade", add_help=False)
    sub = root.add_subparsers()
    one = sub.add_parser(
        name, parents=[command(name).parser()], add_help=False, conflict_handler="resolve"
    )
    _with_completers(one)
    return root


def _with_completers(parser: argparse.ArgumentParser, **extra: Completer) -> None:
    by_dest: dict[str, Completer] = {
        "exercise": _exercise_ids,
        "like": _exercise_ids,
        "ids": _exercise_ids,
        "assignment": _assignment_ids,
        **extra,
    }
    for action in parser._actions:
        if action.dest in by_dest:
            action.completer = by_dest[action.dest]  # type: ignore[attr-defined]


def _exercise_ids(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    catalog = _catalog(parsed_args)
    return [] if catalog is None else [i for i in catalog.ids() if i.startswith(prefix)]


def _assignment_ids(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    catalog = _catalog(parsed_args)
    return [] if catalog is None else [i for i in catalog.assignment_ids() if i.startswith(prefix)]


def _catalog(parsed_args: argparse.Namespace) -> Any:
    from grader.judge.catalog import Catalog

    try:
        return Catalog.find(getattr(parsed_args, "exercises", None))
    except GraderError:
        # no exercises folder here: nothing to offer, and never an error on the shell's line
        return None


def _commands_or_files(commands: tuple[str, ...]) -> Completer:
    def complete_first(prefix: str, **kwargs: Any) -> list[str]:
        from argcomplete.completers import FilesCompleter

        files = list(FilesCompleter()(prefix, **kwargs))
        return [c for c in commands if c.startswith(prefix)] + files

    return complete_first


def _words_before_cursor() -> list[str]:
    """The words after `grade` up to the cursor; the last is the one being completed ('' after a
    space)."""
    line = os.environ.get("COMP_LINE", "")[: int(os.environ.get("COMP_POINT", "0") or 0)]
    words = line.split()[1:]
    return [*words, ""] if line.endswith(" ") or not words else words
