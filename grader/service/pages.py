"""The course server's pages: a student's (their submissions, each report, the deadline, submissions left today) and
the instructor's (the queue and the workers, live; the class summary of grader.outputs.summary_html over the counted
scores; each student's history; the gradebook export). Server-rendered HTML with the CSP of every page the grader
writes (no scripts); a session cookie from a one-time login link (`grade submit --login`) says who is reading.
"""

from __future__ import annotations

import time
from datetime import datetime
from urllib.parse import quote

from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.outputs.html_page import e, num, page, table
from grader.outputs.students import ExerciseColumn
from grader.service import queue, schema
from grader.service.app import COOKIE, State, caller, status_of
from grader.service.standing import Row, report_json, rows_of
from grader.service.store import reading
from grader.service.tokens import SESSION_SECONDS, Who, use_link
from grader.service.views import stored_report, student_view

_CSS = """
nav { margin: .4em 0 1em; } nav a { margin-right: 1em; }
.late { color: #c62828; } .waiting { color: #8d6e00; }
section.live { border: 1px solid #3b6ea8; border-radius: 6px; padding: .2em .9em .5em; margin: .8em 0; }
"""


def _when(moment: float | None, state: State) -> str:
    if moment is None:
        return "none"
    return datetime.fromtimestamp(moment, state.course.timezone).strftime("%Y-%m-%d %H:%M %Z")


def _state(request: Request) -> State:
    found: State = request.app.state.grader
    return found


async def _reader(request: Request, instructor: bool = False) -> Who | Response:
    who = await caller(request, _state(request))
    if who is None:
        return HTMLResponse(page("Sign in", "<h1>Sign in</h1><p>Run <code>grade submit --login</code> and open the "
                                            "link it prints (it works once, for five minutes), or open the "
                                            "assignment from the LMS, in a window of its own.</p>"), 401)
    if instructor and not who.instructor:
        return HTMLResponse(page("Not yours", "<h1>Instructors only</h1>"), 403)
    return who


async def login(request: Request) -> Response:
    state = _state(request)
    session = await run_in_threadpool(use_link, state.engine, request.path_params["code"])
    if session is None:
        return HTMLResponse(page("Link used", "<h1>This link has expired or was used</h1><p>Run <code>grade submit "
                                              "--login</code> again for a new one.</p>"), 403)
    response = RedirectResponse("/me", status_code=303)
    response.set_cookie(COOKIE, session, max_age=SESSION_SECONDS, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


def _submission_rows(rows: list[Row], state: State, link: str) -> str:
    cells = []
    for row in rows:
        late = f'<span class="late">{num(row.days_late)} d late</span>' if row.days_late > 0 else "on time"
        score = (f"{num(row.public_score)} public" if row.outcome == "graded" else e(row.outcome)) \
            if row.outcome is not None else f'<span class="waiting">{e(row.state)}</span>'
        cells.append([f'<a href="{link}{row.id}">{row.id}</a>', e(row.assignment), e(row.filename),
                       e(_when(row.received_at, state)), late, score, f'<span class="id">{e(row.sha256[:12])}</span>'])
    return table(["#", "assignment", "file", "received", "late", "result", "sha256"], cells) if cells else \
        "<p>No submissions yet.</p>"


async def me(request: Request) -> Response:
    return await _student_page(request, None)


async def my_assignment(request: Request) -> Response:
    """One assignment's part of the student's page: where an LMS link to it leads."""
    chosen = request.path_params["assignment"]
    if chosen not in _state(request).course.assignments:
        return HTMLResponse(page("Not found", "<h1>No such assignment</h1>"), 404)
    return await _student_page(request, chosen)


async def _student_page(request: Request, chosen: str | None) -> Response:
    who = await _reader(request)
    if not isinstance(who, Who):
        return who
    if who.instructor:
        return RedirectResponse("/instructor" + (f"?assignment={quote(chosen)}" if chosen else ""), status_code=303)
    state = _state(request)

    def build() -> str:
        status = status_of(state, who.student)
        with reading(state.engine) as db:
            rows = rows_of(db, who.student, chosen, limit=200)
        assignments = []
        for a in status["assignments"]:  # type: ignore[attr-defined]
            if chosen is not None and a["id"] != chosen:
                continue
            counted = a["counted"]
            left = "no limit" if a["left_today"] is None else str(a["left_today"])
            assignments.append([e(a["id"]), e(", ".join(a["exercises"])),
                                e(_when(a["deadline"], state)) + (" (your extension)" if a["extended"] else ""),
                                e(left), e(f"{num(counted['score'])}/{num(counted['max_score'])}"
                                           if counted["score"] is not None else "-") + f" <span class=\"muted\">"
                                f"{e(counted['why'])}</span>",
                                "shown" if a["hidden_released"] else "after the deadline"])
        late = status["late_days_left"]
        body = (f"<h1>{e(state.course.name)}: {e(who.student)}</h1>"
                + ('<nav><a href="/me">all assignments</a></nav>' if chosen else "")
                + f"<p class=\"muted\">Now {e(_when(time.time(), state))}."
                + (f" Late days left: {late}." if late is not None else "") + "</p>"
                + "<h2>Assignments</h2>"
                + table(["assignment", "exercises", "deadline", "submissions left today", "counts now",
                         "hidden checks"], assignments)
                + "<h2>Your submissions</h2>" + _submission_rows(rows, state, "/me/submissions/"))
        return page(f"{state.course.name}: {chosen or 'your submissions'}", body, _CSS)

    return HTMLResponse(await run_in_threadpool(build))


async def my_report(request: Request) -> Response:
    who = await _reader(request)
    if not isinstance(who, Who):
        return who
    return await _report_page(request, who, "/me")


async def _report_page(request: Request, who: Who, back: str) -> Response:
    from grader.outputs.feedback import feedback_html
    from grader.outputs.students import Student

    state = _state(request)
    try:
        ident = int(request.path_params["id"])
    except ValueError:
        return HTMLResponse(page("Not found", "<h1>Not found</h1>"), 404)

    def build() -> str | None:
        with reading(state.engine) as db:
            owner = db.execute(select(schema.submissions.c.student_id).where(schema.submissions.c.id == ident)
                               ).scalar_one_or_none()
        if owner is None or (owner != who.student and not who.instructor):
            return None
        text = report_json(state.engine, ident)
        if text is None:
            return page("Waiting", f"<h1>Submission {ident} is waiting to be graded</h1><p>Reload in a moment.</p>"
                                   f'<p><a href="{back}">back</a></p>')
        rules = state.course.assignments.get(_assignment_of(state, ident))
        deadline = rules.deadline_for(owner) if rules else None
        released = who.instructor or (deadline is not None and time.time() >= deadline)
        view = student_view(stored_report(text), hidden_released=released)
        html = feedback_html(view, Student(id=owner, name=owner, submission=view.submission))
        return html.replace("<body>\n", f'<body>\n<nav><a href="{back}">&larr; back</a></nav>\n', 1)

    built = await run_in_threadpool(build)
    if built is None:
        return HTMLResponse(page("Not found", "<h1>Not found</h1>"), 404)
    return HTMLResponse(built)


def _assignment_of(state: State, ident: int) -> str:
    with reading(state.engine) as db:
        return str(db.execute(select(schema.submissions.c.assignment).where(schema.submissions.c.id == ident))
                   .scalar_one())


async def instructor(request: Request) -> Response:
    who = await _reader(request, instructor=True)
    if not isinstance(who, Who):
        return who
    state = _state(request)
    chosen = request.query_params.get("assignment") or next(iter(state.course.assignments))
    if chosen not in state.course.assignments:
        return HTMLResponse(page("Not found", "<h1>No such assignment</h1>"), 404)
    return HTMLResponse(await run_in_threadpool(_instructor_page, state, chosen))


def _instructor_page(state: State, chosen: str) -> str:
    from grader.outputs.summary import class_summary
    from grader.outputs.summary_html import summary_html
    from grader.service.gradebook import counted_rows

    course = state.course
    rules = course.assignments[chosen]
    depth = queue.depth(state.engine)
    workers = queue.worker_rows(state.engine, time.time() - 3600)
    now = time.time()
    worker_cells = [[e(w["id"]), e(w["host"]), e(f"{w['load']} on {w['cores']} cores"),
                     e(w["job_id"] if w["job_id"] is not None else "idle"), e(w["graded"]),
                     e(f"{now - float(w['heartbeat_at']):.0f} s ago"),  # type: ignore[arg-type]
                     "stopped" if w["stopped_at"] else ("alive" if now - float(w["heartbeat_at"]) < 60  # type: ignore[arg-type]
                                                        else '<span class="late">silent</span>')]
                    for w in workers]
    with reading(state.engine) as db:
        students = db.execute(select(schema.students.c.id, func.count(schema.submissions.c.id))
                              .outerjoin(schema.submissions, schema.submissions.c.student_id == schema.students.c.id)
                              .where(schema.students.c.role == "student")
                              .group_by(schema.students.c.id).order_by(schema.students.c.id)).all()
    rows = list(counted_rows(state.engine, course, rules))
    columns = _columns(state, rules.exercise_ids)
    summary = class_summary(rows, columns)
    nav = " ".join(f'<a href="/instructor?assignment={e(a)}">{e(a)}</a>' for a in course.assignments)
    live = (f'<nav>{nav} <a href="/instructor/gradebook/{e(chosen)}.csv">gradebook.csv ({e(chosen)})</a></nav>'
            f'<section class="live"><h2>Queue</h2><ul class="stats"><li>{depth["queued"]} queued</li>'
            f'<li>{depth["running"]} being graded</li><li>{depth["done"]} graded</li>'
            f'<li>oldest waiting {depth["oldest_wait"]} s</li></ul>'
            f'<h2>Workers</h2>'
            + (table(["worker", "host", "load", "grading", "graded", "heartbeat", "state"], worker_cells)
               if worker_cells else "<p>No worker has been seen in the last hour.</p>")
            + f"<p>Deadline of {e(chosen)}: {e(_when(rules.deadline, state))}.</p></section>"
            + "<h2>Students</h2>"
            + table(["student", "submissions"], [[f'<a href="/instructor/students/{e(sid)}">{e(sid)}</a>', str(n)]
                                                 for sid, n in students], numeric=frozenset({1})))
    html = summary_html(summary, title=f"{course.name}: {chosen}, the counted scores")
    return html.replace("<body>\n", f"<body>\n{live}\n", 1).replace("</style>", _CSS + "</style>", 1)


def _columns(state: State, ids: tuple[str, ...]) -> list[ExerciseColumn]:
    catalog = state.course.catalog()
    return [ExerciseColumn(i, catalog.load(i).title, catalog.load(i).points) for i in ids]


async def student_history(request: Request) -> Response:
    who = await _reader(request, instructor=True)
    if not isinstance(who, Who):
        return who
    state = _state(request)
    student = request.path_params["student"]

    def build() -> str:
        status = status_of(state, student)
        with reading(state.engine) as db:
            rows = rows_of(db, student, limit=500)
        counted = [[e(a["id"]), e(f"{num(a['counted']['score'])}/{num(a['counted']['max_score'])}"
                                  if a["counted"]["score"] is not None else "-"), e(a["counted"]["why"])]
                   for a in status["assignments"]]  # type: ignore[attr-defined]
        body = (f'<nav><a href="/instructor">&larr; class</a></nav><h1>{e(student)}</h1><h2>Counted</h2>'
                + table(["assignment", "counts", "why"], counted)
                + "<h2>Every submission</h2>" + _submission_rows(rows, state, "/instructor/submissions/"))
        return page(f"{state.course.name}: {student}", body, _CSS)

    return HTMLResponse(await run_in_threadpool(build))


async def any_report(request: Request) -> Response:
    who = await _reader(request, instructor=True)
    if not isinstance(who, Who):
        return who
    return await _report_page(request, who, "/instructor")


async def gradebook_csv(request: Request) -> Response:
    who = await _reader(request, instructor=True)
    if not isinstance(who, Who):
        return who
    state = _state(request)
    rules = state.course.assignments.get(request.path_params["assignment"])
    if rules is None:
        return HTMLResponse(page("Not found", "<h1>No such assignment</h1>"), 404)
    from grader.service.gradebook import export

    folder, _ = await run_in_threadpool(export, state.engine, state.course, rules)
    return Response((folder / "gradebook.csv").read_bytes(), media_type="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{rules.id}-gradebook.csv"'})


def routes() -> list[Route]:
    return [Route("/login/{code}", login, name="login"), Route("/me", me), Route("/me/submissions/{id}", my_report),
            Route("/me/assignments/{assignment}", my_assignment),
            Route("/instructor", instructor), Route("/instructor/students/{student}", student_history),
            Route("/instructor/submissions/{id}", any_report),
            Route("/instructor/gradebook/{assignment}.csv", gradebook_csv)]
