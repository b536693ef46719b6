"""What one server process holds while it runs: the course in force, the store, the secret, who
waits on which report, the deadlines the pages set, and what requests built from stored reports;
and `FreshRules`, which reads the rules in force again before a request. The API
(grader.service.app), the pages and the LTI launch read the state through `state_of(request)`;
none of them imports another to reach it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from grader.service.config import Course
from grader.service.deadlines import StoredRules
from grader.service.live_course import LiveCourse
from grader.service.reports import ReportCache


@dataclass
class State:
    live: LiveCourse
    engine: Engine
    secret: bytes
    #: submissions someone waits on -> the events to set when their result is written
    waiting: dict[int, list[asyncio.Event]] = field(default_factory=dict)
    #: deadlines and extensions set from the pages, kept in the store (grader.service.deadlines)
    stored: StoredRules | None = None
    #: what requests built from stored reports, built once per result and reader
    reports: ReportCache = field(default_factory=ReportCache)

    @property
    def course(self) -> Course:
        """The course's rules in force now: course.toml as last read whole and right, with the
        deadlines and extensions the pages set in the store over it (read again before each
        request: FreshRules)."""
        course = self.live.current()
        return course if self.stored is None else self.stored.apply(course)


def state_of(connection: HTTPConnection) -> State:
    """The server's state, from a request (or any connection) to it."""
    found: State = connection.app.state.grader
    return found


class FreshRules:
    """ASGI middleware: before a request, the deadlines and extensions any process of the course
    set in the store since this one last asked (at most grader.service.deadlines.REFRESH_EVERY
    ago), and course.toml and the LMS registration as they are now
    (grader.service.live_course: before the request's credential is checked, so that a
    deployment removed there admits no request after the look). In a thread: the event loop
    never waits on them."""

    def __init__(self, app: ASGIApp, stored: StoredRules, live: LiveCourse) -> None:
        self.app = app
        self.stored = stored
        self.live = live

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.live.due():
            await run_in_threadpool(self.live.current)
        if scope["type"] == "http" and self.stored.due():
            await run_in_threadpool(self.stored.refresh)
        await self.app(scope, receive, send)
