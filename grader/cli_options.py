"""What the commands of `grade` share: a parser whose
errors reach the one catch site, and the common options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from grader.core.errors import GraderError
from grader.core.exercise import Device
from grader.run.confine.isolate import Level


class Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as a GraderError, so they reach the one catch site."""

    def error(self, message: str) -> NoReturn:
        raise GraderError(f"{message}. Try '{self.prog} --help'.")


@dataclass(frozen=True, slots=True)
class Command:
    """A command of `grade`: the parser of its
    arguments, and what it runs on them (its exit code)."""

    parser: Callable[[], Parser]
    run: Callable[[list[str]], int]


def add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "all"),
        default="all",
        help="where checks run: cpu, cuda, or all (default: CUDA too where available; "
        "CUDA checks are skipped, not failed, without a GPU)",
    )


def devices(choice: str) -> tuple[Device, ...]:
    return ("cpu", "cuda") if choice == "all" else (choice,)  # type: ignore[return-value]


def add_isolation_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--isolation",
        choices=("auto", "full", "namespaces", "landlock", "none"),
        default="auto",
        help="the weakest confinement of submissions to accept; below it, grading stops before "
        f"any submission runs (default auto: {default}; 'none' accepts the risk)",
    )


def isolation_choice(choice: str) -> Level | None:
    return None if choice == "auto" else choice  # type: ignore[return-value]


def check_isolation(minimum: Level) -> None:
    """Refuse, in one line, to grade below `minimum`, before any worker or submission starts."""
    from grader.run.confine import isolate
    from grader.run.sandbox import IsolationRefused, refusal

    mode = isolate.best_mode()
    if not isolate.at_least(mode.level, minimum):
        raise IsolationRefused(refusal(mode, minimum))


def check_device(choice: str) -> None:
    if choice == "cuda":
        from grader.judge.devices import cuda_available

        if not cuda_available():
            raise GraderError(
                "--device cuda: CUDA is not available on this machine. Use --device cpu, or all "
                "(the default), which skips the CUDA checks without costing points."
            )


def add_exercises_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exercises",
        type=Path,
        metavar="DIR",
        help="the exercises folder (default: $AUTOGRADER_EXERCISES, ./exercises, or the bundled "
        "one)",
    )


def add_secret_option(parser: argparse.ArgumentParser, purpose: str) -> None:
    parser.add_argument(
        "--secret-file",
        type=Path,
        metavar="FILE",
        help=f"the course secret each submission's seed is drawn from ({purpose}; default: "
        f"course-secret beside the exercises folder, where grade serve keeps it, if it exists)",
    )
