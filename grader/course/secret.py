"""Where a course keeps the secret its graded submissions' seeds are drawn from
(grader.core.seeds), and how a batch, the exported autograder and the instructor find it.

The secret is a file: `--secret-file F`, or `course-secret` in the course folder, beside
its exercises folder, where `grade serve` keeps its own (grader.service.config), so that a
batch, the server and the exported autograder draw the same seed for the same submission.
No submission's tree holds it (the tree holds only what runs need), no release pack (which
writes each exercise's public checks only), no student's hands. `grade export gradescope`
embeds the course's secret in the autograder zip, which students never see. Nothing else
reads it: `grade FILE` on a student's machine takes `--seed`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.core.seeds import MIN_SECRET_BYTES, new_secret, secret_id

#: the course secret's file, in the course folder (the
#: exercises folder's parent), as the course server names it
SECRET_FILE = "course-secret"
#: what a secret file may hold at most (a secret is a line of text)
MAX_SECRET_BYTES = 4096


@dataclass(frozen=True, slots=True)
class CourseSecret:
    value: bytes
    path: Path

    @property
    def id(self) -> str:
        return secret_id(self.value)


def default_path(exercises: Path) -> Path:
    return exercises.resolve().parent / SECRET_FILE


def read_secret(path: Path) -> CourseSecret:
    """The secret in `path` (surrounding whitespace
    left out); a clear error where it cannot serve."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SECRET_BYTES + 1)
    except FileNotFoundError:
        raise GraderError(
            f"{path}: no such secret file. Make one with: grade seed --new-secret {path}"
        ) from None
    except OSError as exc:
        raise GraderError(f"{path}: cannot read the course secret ({exc.strerror}).") from None
    value = data.strip()
    if len(data) > MAX_SECRET_BYTES or len(value) < MIN_SECRET_BYTES:
        raise GraderError(
            f"{path}: a course secret is one line of {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} "
            f"characters; make a fresh one with: grade seed --new-secret FILE"
        )
    return CourseSecret(value, path)


def find_secret(given: Path | None, exercises: Path) -> CourseSecret | None:
    """`--secret-file`'s secret, else the course's
    own if its exercises folder has one, else None."""
    if given is not None:
        return read_secret(given)
    path = default_path(exercises)
    return read_secret(path) if path.is_file() else None


def write_new_secret(path: Path) -> CourseSecret:
    """A fresh secret in a new file only its owner may read (write_secret)."""
    return write_secret(path, new_secret().encode())


def write_secret(path: Path, value: bytes) -> CourseSecret:
    """`value` in a new file only its owner may read, from its first byte on; an existing
    one is never replaced (the reports graded with it could no longer be reproduced)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise GraderError(
            f"{path} exists already: a course keeps one secret (the reports graded with it are "
            f"reproduced with it); remove the file first to start afresh."
        ) from None
    except OSError as exc:
        raise GraderError(f"cannot write {path}: {exc.strerror}.") from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(value + b"\n")
    return CourseSecret(value, path)
