"""One upload, through either door: `grade submit` (POST /api/submissions) or
the student's page. The assignment it is for, the upload's checks, then the
store (grader.service.intake), with the same refusals and receipt for both.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from grader.core.errors import GraderError
from grader.service.db.store import write_failure
from grader.service.intake import Receipt, Upload, take
from grader.service.tokens import Who
from grader.service.uploads import Refused, check_upload

if TYPE_CHECKING:
    from grader.service.state import State


async def receive(
    state: State,
    who: Who,
    exercise: str | None,
    assignment: str | None,
    content: bytes | Refused,
    name: str,
    key: str,
    arrived: float,
) -> Receipt | Refused:
    """Store `content` for the assignment named (or the one `exercise`
    belongs to), or say why not. `arrived`: when its body was whole
    (grader.service.policy.clock.arrived), the upload's time."""
    try:
        rules = state.course.assignment_for(exercise, assignment)
    except GraderError as exc:
        return Refused(422, str(exc))
    key = key or str(uuid.uuid4())
    if len(key) > 100:
        return Refused(422, "the Idempotency-Key header is longer than 100 characters")
    library = state.course.catalog().library()
    checked = (
        check_upload(content, name, state.course.max_upload_bytes, library)
        if isinstance(content, bytes)
        else content
    )
    if isinstance(checked, Refused):
        return checked
    assert isinstance(content, bytes)
    try:
        upload = Upload(
            who=who,
            rules=rules,
            content=content,
            name=name,
            suffix=checked,
            key=key,
            arrived=arrived,
        )
        return await run_in_threadpool(take, state.engine, state.course, upload, state.secret)
    except SQLAlchemyError as exc:
        code, why = write_failure(exc)
        return Refused(
            code,
            f"your submission was NOT stored: {why}. Submit again in a moment; if this goes on, "
            "tell your instructor.",
        )


def too_big(cap: int) -> Refused:
    return Refused(
        413,
        f"the file is over {cap // 1024} KiB, this course's limit: submit only your code (a .py file "
        "or the notebook), not data or outputs.",
    )
