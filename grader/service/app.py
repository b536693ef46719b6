"""The course server's HTTP API (Starlette): uploads with receipts, a submission's report (waiting
for it if asked), a student's status and history, login links for the pages, and the
instructor's regrade; and `make_app`, which puts the API, the pages (grader.service.pages) and
the LTI launch (grader.service.lti.lti_pages) together.

Who may call each route is declared on it and enforced by one access layer
(grader.service.access): a bearer token, or the pages' session cookie, resolved to one identity
before any route runs. A student sees their own submissions only; another's is "not found", as
one that does not exist. Every store call runs in a thread, so that a slow disk never stalls the
event loop. The course's rules are read through `State.course`, which follows course.toml's
edits (grader.service.live_course).
"""

from __future__ import annotations

import asyncio
import math
import time
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from grader.course.pack.fingerprint import HEADER as PACK
from grader.judge.audience import Audience
from grader.outputs.render_json import report_to_dict
from grader.service import access, packs, uploads
from grader.service.config import Course
from grader.service.db.store import reading, write_failure
from grader.service.deadlines import StoredRules
from grader.service.live_course import LiveCourse
from grader.service.pages.forms import raw
from grader.service.policy import clock
from grader.service.policy.confirmation import hold
from grader.service.reports import cache_key, for_reader
from grader.service.standing import Row, late_now, owner_of, rows_of, worths
from grader.service.state import FreshRules, State, state_of
from grader.service.status import history_lines, status_of
from grader.service.tokens import Who, login_link
from grader.service.work import queue
from grader.service.work.delivery import watch

#: the longest a request for a report waits for grading to finish
MAX_WAIT = 60.0
#: how often a long poll asks whether its credential still holds (it ends with it)
RECHECK_EVERY = 1.0


def error(status: int, message: str, **headers: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers or None)


@access.allow(access.Caller.STUDENT, uploads=True)
async def submit(request: Request, who: Who) -> Response:
    state = state_of(request)
    try:
        receipt = await uploads.accept(state, await _upload(request, who, state))
    except uploads.Refused as refused:
        return error(refused.status, refused.message, **refused.headers())
    stale = await run_in_threadpool(
        packs.stale_in_pack, state.engine, state.course, who.student, request.headers.get(PACK)
    )
    answer = {**receipt.to_json(), "stale_pack": stale}
    return JSONResponse(answer, status_code=200 if receipt.replayed else 201)


async def _upload(request: Request, who: Who, state: State) -> uploads.Upload:
    """The upload a request brings; Refused where its body is over the course's cap."""
    cap = state.course.max_upload_bytes
    body = await raw(request, cap)
    # its time: when the server read its last byte
    arrived = clock.arrived(request.scope)
    if body is None:
        raise uploads.too_big(cap)
    return uploads.Upload(
        who=who,
        content=body,
        name=urllib.parse.unquote(request.headers.get("x-filename", "submission.py")),
        arrived=arrived,
        assignment=request.query_params.get("assignment"),
        exercise=request.query_params.get("exercise"),
        key=request.headers.get("idempotency-key", ""),
    )


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
    event = asyncio.Event()
    state.waiting.setdefault(ident, []).append(event)
    try:
        deadline = time.monotonic() + max(min(wait, MAX_WAIT), 0.0)
        while True:
            found = await run_in_threadpool(describe, state, who, ident)
            if found is None:
                return error(404, f"you have no submission {ident}")
            if found["state"] == "done" or time.monotonic() >= deadline:
                return JSONResponse(found)
            left = min(max(deadline - time.monotonic(), 0.01), RECHECK_EVERY)
            try:
                await asyncio.wait_for(event.wait(), timeout=left)
            except TimeoutError:
                pass
            event.clear()
            if not await access.still_holds(request, who):
                # revoked, or its session ended, while it waited
                why = "your token was revoked, or your session ended, while this request waited"
                return access.refusal(request, 401, "Sign in", why)
    finally:
        events = state.waiting.get(ident, [])
        if event in events:
            events.remove(event)
        if not events:
            state.waiting.pop(ident, None)


def describe(state: State, who: Who, ident: int) -> dict[str, object] | None:
    """One submission, as its student (or an instructor) sees it now."""
    with reading(state.engine) as db:
        owner = owner_of(db, ident)
        if owner is None or (owner != who.student and not who.instructor):
            return None
        row = rows_of(db, submission=ident)[0]
        ahead = queue.ahead_of(db, ident) if row.state == "queued" else 0
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
    if row.outcome is None:
        return data
    worth = None
    if released:
        # what it counts for takes the student's other submissions
        with reading(state.engine) as db:
            worth = worths(course, owner, rows_of(db, owner)).get(ident)
    audience = Audience.student(released)

    def build(text: str) -> dict[str, object]:
        report = for_reader(text, seed_token=row.seed_token, audience=audience, worth=worth)
        return {
            "score": report.score,
            "max_score": report.max_score,
            "report": report_to_dict(report),
        }

    key = ("api", row.seed_token, released, cache_key(worth))
    built = state.reports.get(state.engine, ident, key, build)
    if built is not None:
        data.update(built)
        if worth is not None:
            data.update(late_policy=worth[0].why, counts=worth[1])
    return data


@access.student
async def status(request: Request, who: Who) -> Response:
    state = state_of(request)
    stale = await run_in_threadpool(
        packs.stale_in_pack, state.engine, state.course, who.student, request.headers.get(PACK)
    )
    found = await run_in_threadpool(status_of, state, who.student)
    return JSONResponse({**found, "stale_pack": stale})


@access.student
async def history(request: Request, who: Who) -> Response:
    state = state_of(request)
    student = request.query_params.get("student") if who.instructor else None
    student = student or who.student
    assignment = request.query_params.get("assignment")

    def lines() -> list[dict[str, object]]:
        with reading(state.engine) as db:
            found = rows_of(db, student, assignment, limit=500)
            every = rows_of(db, student)
        listed = history_lines(state.course, student, found, every, who.instructor)
        return [_history_json(row, line.to_json(), state) for row, line in listed]

    submissions = await run_in_threadpool(lines)
    return JSONResponse({"student": student, "submissions": submissions})


def _history_json(row: Row, line: dict[str, object], state: State) -> dict[str, object]:
    return {
        "submission": row.id,
        "assignment": row.assignment,
        "filename": row.filename,
        "sha256": row.sha256,
        "received_at": row.received_at,
        "received_shown": clock.shown(row.received_at, state.course),
        "state": row.state,
        "outcome": row.outcome,
        "public_score": row.public_score,
        "max_score": row.max_score,
        **line,
    }


# a session may not: else a stolen cookie would renew itself for ever, and one an LMS launch
# made would outlive the roster and the platform
@access.allow(access.Caller.STUDENT, token_only=True)
async def new_login_link(request: Request, who: Who) -> Response:
    code = await run_in_threadpool(login_link, state_of(request).engine, who)
    url = str(request.url_for("login", code=code))
    return JSONResponse({"url": url, "expires_in": 300})


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
        depth = await run_in_threadpool(queue.depth, state.engine)
    except SQLAlchemyError as exc:
        return error(503, write_failure(exc)[1])
    return JSONResponse({"ok": True, "queue": depth})


def routes() -> list[Route]:
    """The API's routes, then every page's and the LTI launch's."""
    from grader.service.lti import lti_pages
    from grader.service.pages import (
        class_pages,
        correction_pages,
        deadline_pages,
        login_pages,
        pages,
        upload_pages,
    )

    return [
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


def make_app(
    course: Course, engine: Engine, secret: bytes, live: LiveCourse | None = None
) -> Starlette:
    from grader.service.lti import lti
    from grader.service.pages import pages

    # a deployment course.toml no longer names: its sessions end now
    lti.sync_platforms(engine, course.lti)
    stored = StoredRules(engine)
    stored.refresh()
    # an edit of course.toml that would release results waits for an instructor's word
    # (grader.service.policy.confirmation): compared under the store's deadlines, as the rules in
    # force are
    on_lti = partial(lti.follow_platforms, engine)
    live = live or LiveCourse(course, on_lti=on_lti, hold=hold(engine, stored.apply))
    state = State(live=live, engine=engine, secret=secret, stored=stored)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        watcher = asyncio.create_task(watch(state.engine, state.waiting))
        try:
            yield
        finally:
            watcher.cancel()

    async def missing(request: Request, _: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            why = "no such request of the course server's API: is AUTOGRADER_SERVER this course's?"
            return error(404, why)
        return pages.not_found(state)  # a page of the course, with its name

    served = routes()
    access.check(served)  # a route that declares no access is never served
    # outermost first: every answer's frames; the rules as they are now, before any credential
    # is checked; who the credential names; their limits
    app = Starlette(
        routes=served,
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
