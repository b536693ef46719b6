"""Stale packs: `grade submit` says which version of each exercise its student's pack holds (the
header of grader.course.pack.fingerprint); the server compares them with the course's exercises as
they are now, tells the student which of theirs changed since their pack was released, and keeps who
works from a stale pack (the store's stale_packs) for the instructor's page, until the student shows
a pack that is current again.

The course's fingerprints are computed from its exercises folder, again only when an exercise's
files change.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, delete, insert, select

from grader.course.pack.fingerprint import fingerprint, parse_header, stale
from grader.service.config import Course
from grader.service.db import schema
from grader.service.db.store import reading, writing

_lock = threading.Lock()
#: exercise folder -> (the state of its files, its fingerprint)
_known: dict[Path, tuple[tuple[int, int], str]] = {}


def current(course: Course, ids: set[str]) -> dict[str, str]:
    """The fingerprint of each exercise of `ids` the course grades, as its files are now."""
    graded = set(course.exercise_ids())
    found = {}
    for exercise in sorted(ids & graded):
        folder = course.exercises / exercise
        if not (folder / "exercise.yaml").is_file():
            continue
        files = [p for p in (*folder.rglob("*"), *folder.parent.glob("*.*")) if p.is_file()]
        state = (len(files), max((p.stat().st_mtime_ns for p in files), default=0))
        with _lock:
            known = _known.get(folder)
        if known is None or known[0] != state:
            known = (state, fingerprint(folder))
            with _lock:
                _known[folder] = known
        found[exercise] = known[1]
    return found


def stale_in_pack(engine: Engine, course: Course, student: str, header: str | None) -> list[str]:
    """The exercises whose version in `student`'s pack (as the request's header says) is not the
    course's now; what the store keeps of their stale packs follows (written only when it
    changes)."""
    held = parse_header(header)
    if not held:
        return []
    now = current(course, set(held))
    old = sorted(stale(held, now))
    s = schema.stale_packs.c
    with reading(engine) as db:
        kept = {
            (r.exercise, r.fingerprint)
            for r in db.execute(
                select(s.exercise, s.fingerprint).where(
                    s.student == student, s.exercise.in_(list(now))
                )
            )
        }
    wanted = {(exercise, held[exercise]) for exercise in old}
    if kept != wanted:
        with writing(engine) as db:
            db.execute(
                delete(schema.stale_packs).where(s.student == student, s.exercise.in_(list(now)))
            )
            for exercise, value in sorted(wanted):
                db.execute(
                    insert(schema.stale_packs).values(
                        student=student, exercise=exercise, fingerprint=value, seen_at=time.time()
                    )
                )
    return old


@dataclass(frozen=True, slots=True)
class Stale:
    """An exercise that changed after some of its students' packs were released, and those
    students."""

    exercise: str
    students: tuple[str, ...]
    #: when the last of them was seen with it
    last_seen: float


def stale_packs(engine: Engine, course: Course) -> list[Stale]:
    """Who last submitted (or asked their status) from a pack older than the course's exercises, by
    exercise."""
    s = schema.stale_packs.c
    with reading(engine) as db:
        rows = db.execute(select(s.student, s.exercise, s.fingerprint, s.seen_at)).all()
    now = current(course, {r.exercise for r in rows})
    by_exercise: dict[str, list[tuple[str, float]]] = {}
    for row in rows:
        if (
            row.exercise in now and now[row.exercise] != row.fingerprint
        ):  # an exercise changed back is not stale
            by_exercise.setdefault(row.exercise, []).append((row.student, row.seen_at))
    return [
        Stale(exercise, tuple(sorted(s for s, _ in seen_by)), max(t for _, t in seen_by))
        for exercise, seen_by in sorted(by_exercise.items())
    ]
