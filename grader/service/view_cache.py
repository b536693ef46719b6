"""A stored report's student views, built once per result
and view kind rather than per request (bounded, LRU)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Engine, select

from grader.service.db import schema
from grader.service.db.store import reading

if TYPE_CHECKING:
    from grader.service.standing import Counted

T = TypeVar("T")
#: views kept, the least recently read given up first: a report is bounded (a got
#: value's prefix, shape and size: grader.judge.plain), so this bounds the memory too
SIZE = 512
r = schema.results.c


class Views:
    """Views of reports by (result, kind, what else the view depends on). A result is never
    rewritten: a regrade writes a new one under its own job id, so a cached view is never stale."""

    def __init__(self, size: int = SIZE) -> None:
        self._size = size
        self._views: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()  # store calls, and so these, run in the thread pool
        self.built = 0

    def view(
        self, engine: Engine, submission: int, key: Hashable, build: Callable[[str], T]
    ) -> T | None:
        """`build(report)` of the submission's newest stored report, from the cache
        where this result and `key` were built before; None where it has no report yet."""
        with reading(engine) as db:  # the id alone: a hit never reads the report
            job = db.execute(
                select(r.job_id)
                .where(r.submission_id == submission)
                .order_by(r.job_id.desc())
                .limit(1)
            ).scalar_one_or_none()
        if job is None:
            return None
        full = (job, key)
        with self._lock:
            if full in self._views:
                self._views.move_to_end(full)
                found: T = self._views[full]  # type: ignore[assignment]
                return found
        with reading(engine) as db:
            text = db.execute(select(r.report).where(r.job_id == job)).scalar_one_or_none()
        if text is None:
            return None
        made = build(text)
        with self._lock:
            self.built += 1
            self._views[full] = made
            while len(self._views) > self._size:
                self._views.popitem(last=False)
        return made


def view_key(worth: tuple[Counted, bool] | None) -> Hashable:
    """What of a submission's worth its view shows (grader.service.views.shown):
    the late policy's factor and why, and whether it is the one that counts."""
    return None if worth is None else (worth[0].assignment, worth[0].factor, worth[0].why, worth[1])
