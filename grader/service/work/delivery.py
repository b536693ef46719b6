"""Delivery: a request waiting on a submission's report (GET
/api/submissions/ID?wait=S, as `grade submit` waits) is woken as soon
as the submission's newest job is done, by one watcher for all of them.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine, func, select
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from grader.service.db import schema
from grader.service.db.store import reading

#: how often the watcher looks (one query for every waiting request)
TICK = 0.05


async def watch(engine: Engine, waiting: dict[int, list[asyncio.Event]]) -> None:
    """Wake the requests waiting on a submission once its
    newest job is done (one query per tick for all of them).

    It asks about the submissions waited on, not for results newer than the last one
    seen: results are written in the order workers finish, not in their jobs' order (a
    slow job's result lands after a later job's), and one missed that way left its
    student waiting until their request's wait ran out (reports 11-53 s late)."""
    j = schema.jobs.c

    def done(waited: list[int]) -> list[int]:
        found: list[int] = []
        with reading(engine) as db:
            for start in range(
                0, len(waited), 500
            ):  # a bounded IN list per statement, however many wait
                newest = (
                    select(j.submission_id, func.max(j.id).label("job"))
                    .where(j.submission_id.in_(waited[start : start + 500]))
                    .group_by(j.submission_id)
                    .subquery()
                )
                found += db.execute(
                    select(newest.c.submission_id)
                    .join(schema.jobs, j.id == newest.c.job)
                    .where(j.state == "done")
                ).scalars()
        return found

    while True:
        await asyncio.sleep(TICK)
        waited = sorted(waiting)
        if not waited:
            continue
        try:
            found = await run_in_threadpool(done, waited)
        except SQLAlchemyError:
            await asyncio.sleep(1.0)
            continue
        for ident in found:
            for event in waiting.get(ident, []):
                event.set()
