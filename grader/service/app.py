"""The course server's HTTP API (Starlette): uploads with receipts, a submission's
report (waiting for it if asked), a student's status and history, login links for the
pages, and the instructor's regrade; and `make_app`, which puts the API, the pages
(grader.service.pages) and the LTI launch (grader.service.lti.lti_pages) together.

Who may call each route is declared on it and enforced by one access layer (grader.service.access):
a bearer token, or the pages' session cookie, resolved to one identity before any route runs. A
student sees their own submissions only; another's is "not found", as one that does not exist.
Every store call runs in a thread, so that a slow disk never stalls the event loop. The course's
rules are read through `State.course`, which follows course.toml's edits (grader.service.live).
"""

from __future__ import annotations

import asyncio
import math
import time
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from sqlalchemy import Engine, func, select
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from grader.course.pack.fingerprint import HEADER as PACK
from grader.outputs.render_json import report_to_dict
from grader.service import access, packs
from grader.service.config import Course
from grader.service.db import schema
from grader.service.db.store import reading, write_failure
from grader.service.deadlines import StoredRules
from grader.service.live import LiveCourse
from grader.service.pages.forms import raw
from grader.service.policy import clock
from grader.service.policy.confirm import hold
from grader.service.receive import receive, too_big
from grader.service.seen import labelled, status_of
from grader.service.standing import late_now, rows_of, worths
from grader.service.state import State, state_of
from grader.service.tokens import Who, login_link
from grader.service.uploads import Refused
from grader.service.view_cache import view_key
from grader.service.views import shown
from grader.service.work import queue
from grader.service.work.delivery import watch

#: the longest a request for a report waits for grading to finish
MAX_WAIT = 60.0
#: how often a long poll asks whether its credential still holds (it ends with it)
RECHECK_EVERY = 1.0


class FreshRules:
    """ASGI middleware: before a request, the deadlines and extensions any process of the course
    set in the store since this one last asked (at most grader.service.deadlines.REFRESH_EVERY
    ago), and course.toml and the LMS registration as they are now (grader.service.live: before
    the request's credential is checked, so that a deployment removed there admits no request
    after the look). In a thread: the event loop never waits on them."""

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


def error(status: int, message: str, **headers: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers or None)


@access.allow(access.Caller.STUDENT, uploads=True)
async def submit(request: Request, who: Who) -> Response:
    state = state_of(request)
    name = urllib.parse.unquote(request.headers.get("x-filename", "submission.py"))
    content = await _body(request, state.course.max_upload_bytes)
    arrived = clock.arrived(request.scope)  # its time: when the server read its last byte
    receipt = await receive(
        state,
        who,
        request.query_params.get("exercise"),
        request.query_params.get("assignment"),
        content,
        name,
        request.headers.get("idempotency-key", ""),
        arrived,
    )
    if isinstance(receipt, Refused):
        return error(
            receipt.status,
            receipt.message,
            **({"Retry-After": str(receipt.retry_after)} if receipt.retry_after else {}),
        )
    stale = await run_in_threadpool(
        packs.seen, state.engine, state.course, who.student, request.headers.get(PACK)
    )
    return JSONResponse(
        {**receipt.to_json(), "stale_pack": stale}, status_code=200 if receipt.replayed else 201
    )


async def _body(request: Request, cap: int) -> bytes | Refused:
    body = await raw(request, cap)
    return too_big(cap) if body is None else body


@access.student
async def submission(request: Request, who: Who) -> Response:
    state = state_of(request)
    try:
        ident = int(request.path_params["id"])
        wait = float(request.query_params.get("wait", "0"))
    except ValueError:
        wait = math.nan
    if not math.isfinite(wait):  # nan would wait for ever
        return error(422, "a submission id is a number, and wait a number of seconds")
    wait = min(wait, MAX_WAIT)
    event = asyncio.Event()
    state.waiting.setdefault(ident, []).append(event)
    try:
        deadline = time.monotonic() + max(wait, 0.0)
        while True:
            found = await run_in_threadpool(describe, state, who, ident)
            if found is None:
                return error(404, f"you have no submission {ident}")
            if found["state"] == "done" or time.monotonic() >= deadline:
                return JSONResponse(found)
            try:
                await asyncio.wait_for(
                    event.wait(), timeout=min(max(deadline - time.monotonic(), 0.01), RECHECK_EVERY)
                )
            except TimeoutError:
                pass
            event.clear()
            if not await access.still_holds(
                request, who
            ):  # revoked, or its session ended, while it waited
                return access.refusal(
                    request,
                    401,
                    "Sign in",
                    "your token was revoked, or your session ended, while this request waited",
                )
    finally:
        events = state.waiting.get(ident, [])
        if event in events:
            events.remove(event)
        if not events:
            state.waiting.pop(ident, None)


def describe(state: State, who: Who, ident: int) -> dict[str, object] | None:
    """One submission, as its student (or an instructor) sees it now."""
    with reading(state.engine) as db:
        owner = db.execute(
            select(schema.submissions.c.student_id).where(schema.submissions.c.id == ident)
        ).scalar_one_or_none()
        if owner is None or (owner != who.student and not who.instructor):
            return None
        row = rows_of(db, submission=ident)[0]
        j = schema.jobs.c
        ahead = (
            db.execute(
                select(func.count()).where(
                    j.state == "queued",
                    j.priority == 0,
                    j.id < select(func.max(j.id)).where(j.submission_id == ident).scalar_subquery(),
                )
            ).scalar_one()
            if row.state == "queued"
            else 0
        )
    course = state.course
    rules = course.assignments.get(row.assignment)
    deadline = rules.deadline_for(owner) if rules is not None else None
    released = who.instructor or (deadline is not None and time.time() >= deadline)
    data: dict[str, object] = {
        "submission": row.id,
        "assignment": row.assignment,
        "filename": row.filename,
        "sha256": row.sha256,
        "received_at": row.received_at,
        "received_shown": clock.shown_exactly(row.received_at, course),
        "days_late": late_now(course, rules, owner, row),
        "seed_token": row.seed_token,
        "state": row.state,
        "queue_ahead": ahead,
        "outcome": row.outcome,
        "hidden_released": released,
    }
    if row.outcome is not None:
        with reading(
            state.engine
        ) as db:  # what it counts for takes the student's other submissions
            worth = worths(course, owner, rows_of(db, owner)).get(ident) if released else None

        def build(text: str) -> dict[str, object]:
            view = shown(text, seed_token=row.seed_token, hidden_released=released, worth=worth)
            return {
                "score": view.score,
                "max_score": view.max_score,
                "report": report_to_dict(view),
            }

        built = state.views.view(
            state.engine, ident, ("api", row.seed_token, released, view_key(worth)), build
        )
        if built is not None:
            data.update(built)
            if worth is not None:
                data.update(late_policy=worth[0].why, counts=worth[1])
    return data


@access.student
async def status(request: Request, who: Who) -> Response:
    state = state_of(request)
    stale = await run_in_threadpool(
        packs.seen, state.engine, state.course, who.student, request.headers.get(PACK)
    )
    found = await run_in_threadpool(status_of, state, who.student)
    return JSONResponse({**found, "stale_pack": stale})


@access.student
async def history(request: Request, who: Who) -> Response:
    state = state_of(request)
    student = request.query_params.get("student") if who.instructor else None

    def rows() -> list[dict[str, object]]:
        with reading(state.engine) as db:
            found = rows_of(
                db, student or who.student, request.query_params.get("assignment"), limit=500
            )
            every = rows_of(db, student or who.student)
        return [
            {
                "submission": r.id,
                "assignment": r.assignment,
                "filename": r.filename,
                "sha256": r.sha256,
                "received_at": r.received_at,
                "received_shown": clock.shown(r.received_at, state.course),
                "state": r.state,
                "outcome": r.outcome,
                "public_score": r.public_score,
                "max_score": r.max_score,
                **label.to_json(),
            }
            for r, label in labelled(
                state.course, student or who.student, found, every, who.instructor
            )
        ]

    return JSONResponse(
        {"student": student or who.student, "submissions": await run_in_threadpool(rows)}
    )


# a session may not: else a stolen cookie would renew itself for ever,
# and one an LMS launch made would outlive the roster and the platform
@access.allow(access.Caller.STUDENT, token_only=True)
async def new_login_link(request: Request, who: Who) -> Response:
    code = await run_in_threadpool(login_link, state_of(request).engine, who)
    return JSONResponse({"url": str(request.url_for("login", code=code)), "expires_in": 300})


@access.instructor
async def regrade(request: Request, who: Who) -> Response:
    state = state_of(request)
    assignment = request.query_params.get("assignment")
    if assignment is not None and assignment not in state.course.assignments:
        return error(422, f"no assignment {assignment[:80]!r}")
    count = await run_in_threadpool(queue.enqueue_all, state.engine, assignment)
    return JSONResponse({"queued": count})


@access.anyone
async def health(request: Request) -> Response:
    state = state_of(request)
    try:
        return JSONResponse(
            {"ok": True, "queue": await run_in_threadpool(queue.depth, state.engine)}
        )
    except SQLAlchemyError as exc:
        return error(503, write_failure(exc)[1])


def make_app(
    course: Course, engine: Engine, secret: bytes, live: LiveCourse | None = None
) -> Starlette:
    from grader.service.lti import lti, lti_pages
    from grader.service.pages import (
        class_pages,
        correction_pages,
        deadline_pages,
        login_pages,
        pages,
        upload_pages,
    )

    lti.sync_platforms(
        engine, course.lti
    )  # a deployment course.toml no longer names: its sessions end now
    stored = StoredRules(engine)
    stored.refresh()
    # an edit of course.toml that would release hidden results waits for an instructor's word
    # (grader.service.confirm): compared under the store's deadlines, as the rules in force are
    live = live or LiveCourse(
        course, on_lti=partial(lti.follow_platforms, engine), hold=hold(engine, stored.apply)
    )
    state = State(live=live, engine=engine, secret=secret, stored=stored)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        watcher = asyncio.create_task(watch(state.engine, state.waiting))
        try:
            yield
        finally:
            watcher.cancel()

    routes = [
        Route("/api/submissions", submit, methods=["POST"]),
        Route("/api/submissions/{id}", submission),
        Route("/api/status", status),
        Route("/api/history", history),
        Route("/api/login-link", new_login_link, methods=["POST"]),
        Route("/api/regrade", regrade, methods=["POST"]),
        Route("/healthz", health),
        *login_pages.routes(),
        *class_pages.routes(),
        *deadline_pages.routes(),
        *correction_pages.routes(),
        *upload_pages.routes(),
        *pages.routes(),
        *lti_pages.routes(),
    ]

    async def missing(request: Request, _: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return error(
                404,
                "no such request of the course server's API: is AUTOGRADER_SERVER this course's?",
            )
        return pages.not_found(state)  # a page of the course, with its name

    access.check(routes)  # a route that declares no access is never served
    # outermost first: every answer's frames; the rules as they are now,
    # before any credential is checked; who the credential names; their limits
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(access.Framed, state=state),
            Middleware(FreshRules, stored=stored, live=state.live),
            *access.middleware(),
        ],
        exception_handlers={404: missing},
    )
    app.state.grader = state
    return app
