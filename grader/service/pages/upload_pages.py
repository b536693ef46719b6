"""Submitting from the student's page: a form with a file input (multipart), accepted as
`POST /api/submissions` accepts an upload (grader.service.uploads: the same checks, caps,
daily limit and receipt), under the same rate limit per student, so that a student who comes
only from the LMS (a launch's session, no token) can submit. The form is a POST whose Origin
the server checks (grader.service.pages.origin), and it carries an idempotency key made when
the page was drawn: sending the form twice (a reload, a double click) stores the file once.
"""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from grader.outputs.html_page import e
from grader.service import access, uploads
from grader.service.config import Course
from grader.service.pages.forms import multipart
from grader.service.pages.layout import carried, course_page
from grader.service.policy import clock
from grader.service.state import State, state_of
from grader.service.tokens import Who
from grader.service.uploads import SUFFIXES, Receipt


def upload_form(course: Course, chosen: str | None) -> str:
    """The form of the student's page: a file, for the
    chosen assignment (or one picked from a list)."""
    if chosen is not None:
        which = carried({"assignment": chosen})
    else:
        which = (
            '<label>assignment<select name="assignment">'
            + "".join(f"<option>{e(a)}</option>" for a in course.assignments)
            + "</select></label>"
        )
    return (
        '<h2>Submit</h2><form class="upload" method="post" action="/me/submit" '
        f'enctype="multipart/form-data">{which}{carried({"key": uuid.uuid4()})}'
        f'<label>your file ({", ".join(SUFFIXES)}, up to '
        f'{course.max_upload_bytes // 1024} KiB)<input type="file" name="file" '
        f'accept="{",".join(SUFFIXES)}" required></label><button type="submit">Submit</button>'
        '</form><p class="muted">Test it first with <code>grade FILE</code> where you can: that '
        'is not limited.</p>'
    )


@access.allow(access.Caller.STUDENT, uploads=True)
async def submit(request: Request, who: Who) -> Response:
    state = state_of(request)
    cap = state.course.max_upload_bytes
    form = await multipart(request, cap)
    # its time: when the server read its last byte
    arrived = clock.arrived(request.scope)
    assignment = None
    try:
        if isinstance(form, str):
            raise uploads.too_big(cap) if form == "too big" else uploads.Refused(422, form)
        assignment = form.fields.get("assignment") or None
        upload = uploads.Upload(
            who=who,
            content=form.content,
            name=form.filename,
            arrived=arrived,
            assignment=assignment,
            key=form.fields.get("key", ""),
        )
        receipt = await uploads.accept(state, upload)
    except uploads.Refused as refused:
        return _refused(state, refused, back=assignment)
    return HTMLResponse(_receipt(state, receipt), 200 if receipt.replayed else 201)


def _back(assignment: str | None, state: State) -> str:
    if assignment is not None and assignment in state.course.assignments:
        return f"/me/assignments/{e(assignment)}"
    return "/me"


def _refused(state: State, refused: uploads.Refused, back: str | None) -> HTMLResponse:
    body = (
        f'<nav><a href="{_back(back, state)}">&larr; back</a></nav><h1>Not submitted</h1>'
        f"<p>{e(refused.message[:1].upper() + refused.message[1:])}</p>"
    )
    return HTMLResponse(
        course_page(state, "not submitted", body), refused.status, headers=refused.headers()
    )


def _receipt(state: State, receipt: Receipt) -> str:
    moment = clock.shown_exactly(receipt.received_at, state.course)
    late = (
        f'<li class="late">{e(receipt.late_policy or f"{receipt.days_late:g} day(s) late")}</li>'
        if receipt.days_late > 0
        else "<li>on time</li>"
    )
    effect = f'<li class="effect">{e(receipt.effect)}</li>' if receipt.effect else ""
    left = f"<li>{receipt.left_today} more today</li>" if receipt.left_today is not None else ""
    again = (
        "<p>This file was already received (the form was sent again): it is stored once.</p>"
        if receipt.replayed
        else ""
    )
    body = (
        f'<nav><a href="{_back(receipt.assignment, state)}">&larr; back</a></nav><h1>Received: '
        f'submission {receipt.submission} for {e(receipt.assignment)}</h1>{again}<ul><li>sha256 '
        f'<span class="id">{e(receipt.sha256)}</span></li><li>received {e(moment)}</li>'
        f'{late}{effect}{left}</ul><p><a href="/me/submissions/{receipt.submission}">Its report</a>'
        ' (it is graded in a moment; reload that page until it shows).</p>'
    )
    return course_page(state, f"submission {receipt.submission}", body)


def routes() -> list[Route]:
    return [Route("/me/submit", submit, methods=["POST"])]
