"""The table of `grade`'s commands: what `grade --help` says of each, and the module that runs it.

Each module named here holds a table of its own, `COMMANDS`, of its commands' parsers and
functions. It is imported only once its command is asked for: `grade --help` imports none of them.
"""

from __future__ import annotations

from importlib import import_module

from grader.cli_options import Command

#: every command besides grading one submission, with the line `grade --help` shows for it
COMMANDS = {
    "list": "the exercises and assignments",
    "new": "start a new exercise in the course's exercises folder (grade new ID [--like EXISTING])",
    "schema": "print the JSON Schema of exercise.yaml (for editors)",
    "validate": "prove exercises sound: oracles agree, solutions score full marks, every mutant "
    "loses points",
    "release": "write the pack a course hands out: starters, notebooks, public checks",
    "batch": "grade a class: a report, a feedback page and the gradebook for every student",
    "merge": "join the report folders of a batch's shards into one",
    "feedback": "write each student's feedback page again from a batch's reports",
    "publish": "send a batch's scores to the LMS (LTI 1.3 AGS)",
    "export": "write what runs the grader on a platform (gradescope)",
    "seed": "turn a report's seed token back into its seed (grade seed TOKEN), or make a course "
    "secret",
    "serve": "run the course server: students submit to it, it grades and keeps every submission",
    "submit": "submit a file to the course server; a receipt, then the report of the public checks",
    "tokens": "issue each roster student a token for grade submit (or revoke one)",
    "worker": "grade submissions from the course server's queue, on this machine",
    "regrade": "grade every stored submission again, after an exercise changed",
    "gradebook": "write an assignment's counted scores as the batch's gradebook, and publish them",
    "roster": "bring the course server's roster from the LMS (grade roster sync: LTI Names and "
    "Roles)",
    "store": "back up the course server's store while it runs, restore a backup, or copy it to "
    "PostgreSQL",
    "course": "check a course server's course.toml as grade serve reads it (grade course check)",
}

#: the module whose table holds each command
MODULES = {
    "grader.cli_course": ("list", "new", "schema", "validate", "release", "export", "seed"),
    "grader.cli_batch": ("batch", "merge", "feedback", "publish"),
    "grader.cli_service": (
        "serve",
        "submit",
        "tokens",
        "worker",
        "regrade",
        "gradebook",
        "roster",
        "course",
    ),
    "grader.cli_store": ("store",),
}


def command(name: str) -> Command:
    """`grade NAME`'s parser and function, from its module's table."""
    for module, names in MODULES.items():
        if name in names:
            table: dict[str, Command] = import_module(module).COMMANDS
            return table[name]
    raise KeyError(f"no command {name!r}")
