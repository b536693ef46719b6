"""The course server's pages: a student's (their submissions, each report, the deadline,
submissions left today) and the instructor's (the queue and the workers, live; the class summary
of grader.outputs.summary_html over the counted scores; each student's history; the gradebook
export). Server-rendered HTML with the CSP of every page the grader writes (no scripts); a
session cookie from a one-time login link (`grade submit --login`) says who is reading.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, select
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.judge.audience import Audience
from grader.outputs.html_page import e, num, page, table
from grader.outputs.students import ExerciseColumn
from grader.service import access
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.pages.layout import CSS as _CSS
from grader.service.pages.layout import cards, course_page, not_found
from grader.service.policy import clock
from grader.service.policy.release import is_released
from grader.service.reports import cache_key, for_reader
from grader.service.standing import Row, count, owner_of, rows_of, worths
from grader.service.state import State, state_of
from grader.service.status import history_lines, status_of
from grader.service.tokens import Who


def _when(moment: float | None, state: State) -> str:
    return clock.shown(moment, state.course)


__all__ = ["cards", "course_page", "not_found", "routes"]


@access.anyone
async def home(request: Request) -> Response:
    """What this server is, for whoever opens its address:
    the course, how to submit and how to sign in."""
    name = e(state_of(request).course.name)
    body = (
        f"<h1>{name}</h1><p>The grading server of {name} (autograd-grader). Students submit their "
        "work to it with <code>grade submit</code>; it keeps every submission, grades it and "
        "shows each report.</p><h2>Submit</h2><p>In the folder your course handed out, with the "
        "token your instructor sent you in its <code>grade-course.toml</code> (a line <code>token "
        "= \"agt_...\"</code>) or in <code>$AUTOGRADER_TOKEN</code>:</p><pre>grade submit "
        "FILE\ngrade submit --status</pre><h2>Sign in</h2><p>Run <code>grade submit --login</code>"
        ", open the link it prints (once, within five minutes) and sign in on its page. Then: <a "
        "href=\"/me\">your submissions</a>; instructors: <a href=\"/instructor\">the class</a>"
        ".</p>"
    )
    return HTMLResponse(course_page(state_of(request), "grading server", body))


def _submission_rows(
    rows: list[Row], state: State, link: str, student: str, instructor: bool = False
) -> str:
    cells = []
    with reading(
        state.engine
    ) as db:  # what one counts depends on all of them (late days spent across them)
        every = rows_of(db, student)
    for row, line in history_lines(state.course, student, rows, every, instructor):
        late = (
            f'<span class="late">{num(line.days_late)} d late</span>'
            if line.days_late > 0
            else "on time"
        )
        counted = (
            f"{num(line.score)}/{num(row.max_score)}{' counts' if line.counts else ''}"
            if line.score is not None
            else f"{num(row.public_score)} public"
        )
        score = (
            (counted if row.outcome == "graded" else e(row.outcome))
            if row.outcome is not None
            else f'<span class="waiting">{e(row.state)}</span>'
        )
        cells.append(
            [
                f'<a href="{link}{row.id}">{row.id}</a>',
                e(row.assignment),
                e(row.filename),
                e(_when(row.received_at, state)),
                late,
                score,
                f'<span class="id">{e(row.sha256[:12])}</span>',
            ]
        )
    return (
        table(["#", "assignment", "file", "received", "late", "result", "sha256"], cells)
        if cells
        else "<p>No submissions yet.</p>"
    )


@access.student
async def me(request: Request, who: Who) -> Response:
    return await _student_page(request, who, None)


@access.student
async def my_assignment(request: Request, who: Who) -> Response:
    """One assignment's part of the student's page: where an LMS link to it leads."""
    chosen = request.path_params["assignment"]
    if chosen not in state_of(request).course.assignments:
        return not_found(state_of(request), "No such assignment")
    return await _student_page(request, who, chosen)


async def _student_page(request: Request, who: Who, chosen: str | None) -> Response:
    if who.instructor:
        return RedirectResponse(
            "/instructor" + (f"?assignment={quote(chosen)}" if chosen else ""), status_code=303
        )
    state = state_of(request)

    from grader.service.pages.upload_pages import upload_form

    def build() -> str:
        status = status_of(state, who.student)
        with reading(state.engine) as db:
            rows = rows_of(db, who.student, chosen, limit=200)
            name = _name(db, who.student)
        assignments = []
        for assignment in status["assignments"]:  # type: ignore[attr-defined]
            if chosen is None or assignment["id"] == chosen:
                assignments.append(_assignment_cells(assignment))
        late = status["late_days_left"]
        columns = [
            "assignment",
            "exercises",
            "deadline",
            "submissions left today",
            "counts now",
            "hidden checks",
        ]
        body = (
            f"<h1>{e(state.course.name)}: {e(name)}</h1>"
            + ('<nav><a href="/me">all assignments</a></nav>' if chosen else "")
            + f"<p class=\"muted\">Now {e(_when(time.time(), state))}."
            + (f" Late days left: {late}." if late is not None else "")
            + "</p>"
            + "<h2>Assignments</h2>"
            + cards(columns, assignments)
            + upload_form(state.course, chosen)
            + "<h2>Your submissions</h2>"
            + _submission_rows(rows, state, "/me/submissions/", who.student)
        )
        return page(f"{state.course.name}: {chosen or 'your submissions'}", body, _CSS)

    return HTMLResponse(await run_in_threadpool(build))


def _assignment_cells(assignment: dict[str, Any]) -> list[str]:
    """One assignment of a student's status (grader.service.status), as their page's cells."""
    counted = assignment["counted"]
    left = "no limit" if assignment["left_today"] is None else str(assignment["left_today"])
    closes = f"; closes {assignment['closes_shown']}" if assignment["closes"] is not None else ""
    if counted["excused"]:
        score = "excused"
    elif counted["score"] is not None:
        score = f"{num(counted['score'])}/{num(counted['max_score'])}"
    else:
        score = "-"
    extended = " (your extension)" if assignment["extended"] else ""
    return [
        e(assignment["id"]),
        e(", ".join(assignment["exercises"])),
        e(assignment["deadline_shown"] + extended + closes),
        e(left),
        e(score) + f' <span class="muted">{e(counted["why"])}</span>',
        "shown" if assignment["hidden_released"] else "after the deadline",
    ]


@access.student
async def my_report(request: Request, who: Who) -> Response:
    return await _report_page(request, who, "/me")


async def _report_page(request: Request, who: Who, back: str) -> Response:
    from grader.outputs.feedback import feedback_html
    from grader.outputs.students import Student

    state = state_of(request)
    try:
        ident = int(request.path_params["id"])
    except ValueError:
        return not_found(state)

    def build() -> str | None:
        with reading(state.engine) as db:
            owner = owner_of(db, ident)
            if owner is None or (owner != who.student and not who.instructor):
                return None
            rows = rows_of(db, owner)
        row = next(r for r in rows if r.id == ident)
        course = state.course
        released = who.instructor or is_released(course, owner, row.assignment)
        worth = worths(course, owner, rows).get(ident) if released else None
        audience = Audience.student(released)

        def built_page(text: str) -> str:
            report = for_reader(text, seed_token=row.seed_token, audience=audience, worth=worth)
            student = Student(id=owner, name=owner, submission=report.submission)
            return feedback_html(report, student, audience=audience)

        key = ("page", owner, row.seed_token, released, cache_key(worth))
        html = state.reports.get(state.engine, ident, key, built_page)
        if html is None:
            return course_page(
                state,
                "Waiting",
                f"<h1>Submission {ident} is waiting to be graded</h1><p>Reload in "
                f'a moment.</p><p><a href="{back}">back</a></p>',
            )
        return html.replace(
            "<body>\n",
            f'<body>\n<nav><a href="{back}">&larr; back</a> '
            f'<span class="muted">{e(state.course.name)}</span></nav>\n',
            1,
        )

    built = await run_in_threadpool(build)
    if built is None:
        return not_found(state)
    return HTMLResponse(built)


@access.instructor
async def instructor(request: Request, who: Who) -> Response:
    """One assignment's class summary (grader.outputs.summary_html) over the counted scores."""
    state = state_of(request)
    chosen = request.query_params.get("assignment") or next(iter(state.course.assignments))
    if chosen not in state.course.assignments:
        return not_found(state_of(request), "No such assignment")
    return HTMLResponse(await run_in_threadpool(_instructor_page, state, chosen))


def _instructor_page(state: State, chosen: str) -> str:
    from grader.outputs.summary import class_summary
    from grader.outputs.summary_html import summary_html
    from grader.service.gradebook import counted_rows

    course = state.course
    rules = course.assignments[chosen]
    rows = list(counted_rows(state.engine, course, rules))
    summary = class_summary(rows, _columns(state, rules.exercise_ids))
    nav = " ".join(
        f'<a href="/instructor/summary?assignment={e(a)}">{e(a)}</a>' for a in course.assignments
    )
    top = (
        f'<p class="course">{e(course.name)}</p><nav><a href="/instructor">&larr; class</a> {nav} '
        f'<a href="/instructor/gradebook/{e(chosen)}.csv">gradebook.csv ({e(chosen)})</a></nav>'
    )
    html = summary_html(summary, title=f"{course.name}: {chosen}, the counted scores")
    return html.replace("<body>\n", f"<body>\n{top}\n", 1).replace("</style>", _CSS + "</style>", 1)


def _columns(state: State, ids: tuple[str, ...]) -> list[ExerciseColumn]:
    catalog = state.course.catalog()
    return [ExerciseColumn(i, catalog.load(i).title, catalog.load(i).points) for i in ids]


def _name(db: Connection, student: str) -> str:
    """The roster's name of `student` (a page names a person by it), else their id."""
    st = schema.students.c
    found = db.execute(select(st.name).where(st.id == student)).scalar_one_or_none()
    return str(found) if found else student


@access.instructor
async def student_history(request: Request, who: Who) -> Response:
    state = state_of(request)
    student = request.path_params["student"]
    entry = request.query_params.get("entry", "")

    from grader.service.pages.class_pages import CSS
    from grader.service.pages.correction_pages import ACTIONS, section
    from grader.service.policy.audit import audit

    def build() -> str:
        with reading(state.engine) as db:
            rows = rows_of(db, student, limit=500)
            every = rows_of(db, student)
            name = _name(db, student)
        chosen = count(
            state.course, student, every
        )  # what counts, as the instructor sees it (released or not)
        counted = [
            [
                e(c.assignment),
                e(
                    "excused"
                    if c.excused
                    else f"{num(c.score)}/{num(c.max_score)}"
                    if c.score is not None
                    else "-"
                ),
                e(c.why),
            ]
            for c in chosen.values()
        ]
        # the correction just made, named by its audit entry (never text from the query)
        done = next(
            (x for x in audit(state.engine, 50) if str(x.id) == entry and x.action in ACTIONS), None
        )
        notice = (
            f"{done.action} of {done.assignment} for {done.student}: {done.old} -> {done.new}"
            if done
            else ""
        )
        body = (
            f'<nav><a href="/instructor">&larr; class</a></nav><h1>{e(name)} <span class="muted">'
            f'{e(student)}</span></h1>'
            + (f'<p class="notice">{e(notice)}</p>' if notice else "")
            + "<h2>Counted</h2>"
            + table(["assignment", "counts", "why"], counted)
            + section(state, student, every, chosen)
            + "<h2>Every submission</h2>"
            + _submission_rows(rows, state, "/instructor/submissions/", student, instructor=True)
        )
        return course_page(state, student, body, CSS)

    return HTMLResponse(await run_in_threadpool(build))


@access.instructor
async def any_report(request: Request, who: Who) -> Response:
    return await _report_page(request, who, "/instructor")


@access.instructor
async def gradebook_csv(request: Request, who: Who) -> Response:
    state = state_of(request)
    rules = state.course.assignments.get(request.path_params["assignment"])
    if rules is None:
        return not_found(state_of(request), "No such assignment")
    from grader.service.gradebook import export

    folder, _ = await run_in_threadpool(export, state.engine, state.course, rules)
    return Response(
        (folder / "gradebook.csv").read_bytes(),
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{rules.id}-gradebook.csv"'},
    )


def routes() -> list[Route]:
    return [
        Route("/", home),
        Route("/me", me),
        Route("/me/submissions/{id}", my_report),
        Route("/me/assignments/{assignment}", my_assignment),
        Route("/instructor/summary", instructor),
        Route("/instructor/students/{student}", student_history),
        Route("/instructor/submissions/{id}", any_report),
        Route("/instructor/gradebook/{assignment}.csv", gradebook_csv),
    ]
