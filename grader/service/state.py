"""What one server process holds while it runs: the course in force, the store, the
secret, who waits on which report, the deadlines the pages set, and the students'
views of reports. The API (grader.service.app), the pages and the LTI launch read
it through `state_of(request)`; none of them imports another to reach it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy import Engine
from starlette.requests import HTTPConnection

from grader.service.config import Course
from grader.service.deadlines import StoredRules
from grader.service.live import LiveCourse
from grader.service.view_cache import Views


@dataclass
class State:
    live: LiveCourse
    engine: Engine
    secret: bytes
    #: submissions someone waits on -> the events to set when their result is written
    waiting: dict[int, list[asyncio.Event]] = field(default_factory=dict)
    #: deadlines and extensions set from the pages, kept in the store (grader.service.deadlines)
    stored: StoredRules | None = None
    views: Views = field(default_factory=Views)  # students' views of reports, built once per result

    @property
    def course(self) -> Course:
        """The course's rules in force now: course.toml as last read whole
        and right, with the deadlines and extensions the pages set in the
        store over it (read again before each request: FreshRules)."""
        course = self.live.current()
        return course if self.stored is None else self.stored.apply(course)


def state_of(connection: HTTPConnection) -> State:
    """The server's state, from a request (or any connection) to it."""
    found: State = connection.app.state.grader
    return found
