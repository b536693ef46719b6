"""The instructor's class page (/instructor): the queue and the workers, live; the class table
(grader.service.classtable) sorted and filtered by the query string, every cell a link to the
submission it counts; its CSV export; and the regrade of one student, one assignment or all.

No script runs on these pages (the CSP of grader.outputs.html_page): sorting and filtering
are links and a GET form, answered by the server. A regrade is a POST form, whose Origin
the server checks like every state-changing request made with the session cookie.
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.core.errors import GraderError
from grader.outputs.html_page import e, num, table
from grader.service import access, deadlines, packs
from grader.service.classtable import (
    Cell,
    ClassRow,
    TableQuery,
    class_csv,
    class_rows,
    kept_rows,
    table_query,
)
from grader.service.config import Rules
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.lti import columns
from grader.service.pages.forms import fields
from grader.service.pages.layout import carried, course_page
from grader.service.policy import clock
from grader.service.state import State, state_of
from grader.service.tokens import Who
from grader.service.work import queue

CSS = """
form.inline { display: flex; flex-wrap: wrap; gap: .4em .8em; align-items: end; margin: .5em 0; }
form.inline label { display: flex; flex-direction: column; font-size: 12px; color: #444; }
input, select, button { font: inherit; padding: .2em .4em; max-width: 100%; }
th a { color: inherit; text-decoration: none; } th a:hover { text-decoration: underline; }
td.none { color: #999; }
.notice { background: #eef5ee; border: 1px solid #9c9; padding: .3em .6em; }
table.class th { white-space: nowrap; }
/* the student's name stays in query while the scores scroll sideways under it */
table.class th:first-child, table.class td:first-child {
  position: sticky; left: 0; background: #fff; z-index: 1; }
table.class th:first-child { background: #f3f3f3; }
@media (max-width: 640px) {
  table.class td:first-child { max-width: 9em; }
}
"""


def when(moment: float | None, state: State) -> str:
    return clock.shown(moment, state.course)


@access.instructor
async def class_page(request: Request, who: Who) -> Response:
    state = state_of(request)
    query = table_query(request.query_params, state.course)
    entry = request.query_params.get("regrade", "")
    return HTMLResponse(
        await run_in_threadpool(_class_html, state, query, int(entry) if entry.isdigit() else None)
    )


def _class_html(state: State, query: TableQuery, regraded: int | None) -> str:
    course = state.course
    # the regrade just asked for, named by its audit entry
    # (never text from the query: a link could say anything)
    done = (
        next(
            (
                x
                for x in deadlines.audit(state.engine, 20)
                if x.id == regraded and x.action in (deadlines.REGRADE, deadlines.PUBLISH)
            ),
            None,
        )
        if regraded is not None
        else None
    )
    notice = (
        ""
        if done is None
        else f"Sent {done.assignment}'s scores to the LMS: {done.new}."
        if done.action == deadlines.PUBLISH
        else f"Regrade of {done.assignment or 'every assignment'} for "
        f"{done.student or 'every student'}: {done.new}, behind every new upload."
    )
    rows = class_rows(state.engine, course)
    kept = kept_rows(rows, query)
    csv_link = "/instructor/class.csv" + (f"?{urlencode(query.params())}" if query.params() else "")
    summaries = " ".join(
        f'<a href="/instructor/summary?assignment={e(a)}">{e(a)} summary</a>'
        for a in course.assignments
    )
    body = (
        '<h1>The class</h1><nav><a href="/instructor/deadlines">deadlines and extensions</a> '
        f'{summaries} <a href="{e(csv_link)}">class.csv</a></nav>'
        + (f'<p class="notice">{e(notice)}</p>' if notice else "")
        + _live(state)
        + _stale_packs(state)
        + f"<h2>Students ({len(kept)} of {len(rows)})</h2>"
        + _filters(query, rows, state)
        + _table(kept, query, state)
        + "<p class=\"muted\">Each score is the submission that counts under its assignment's "
        "rules (best or last, after the late policy); hover for why. The counted scores as the LMS "
        "takes them: "
        + " ".join(
            f'<a href="/instructor/gradebook/{e(a)}.csv">gradebook.csv ({e(a)})</a>'
            for a in course.assignments
        )
        + ".</p>"
        + _regrade_form(rows, state)
        + _publish_form(state)
    )
    return course_page(state, "the class", body, CSS)


def _live(state: State) -> str:
    depth = queue.depth(state.engine)
    now = time.time()
    cells = []
    for w in queue.worker_rows(state.engine, now - 3600):
        stopped = float(w["stopped_at"] or 0.0)  # type: ignore[arg-type]
        if stopped and now - stopped > STOPPED_SHOWN:
            continue  # it stopped as asked: nothing to look at
        beat = float(w["heartbeat_at"])  # type: ignore[arg-type]
        every = float(w["beat"] or LEGACY_BEAT)  # type: ignore[arg-type]
        lost = not w["stopped_at"] and now - beat > 2 * every
        alive = (
            "stopped"
            if w["stopped_at"]
            else ('<span class="late">lost</span>' if lost else "alive")
        )
        cells.append(
            [
                e(w["id"]),
                e(w["host"]),
                e(f"{w['load']} on {w['cores']} cores"),
                e(_held(w, lost)),
                e(w["graded"]),
                e(f"{now - beat:.0f} s ago"),
                alive,
            ]
        )
    return (
        f'<section class="live"><h2>Queue</h2><ul class="stats"><li>{depth["queued"]} queued</li>'
        f'<li>{depth["running"]} being graded</li><li>{depth["done"]} graded</li>'
        f'<li>oldest waiting {depth["oldest_wait"]} s</li></ul><h2>Workers</h2>'
        + (
            table(["worker", "host", "load", "grading", "graded", "heartbeat", "state"], cells)
            if cells
            else "<p>No worker is running, and none was lost in the last hour.</p>"
        )
        + (f'<p class="late">{e(state.live.problem)}</p>' if state.live.problem else "")
        + "</section>"
    )


def _stale_packs(state: State) -> str:
    """Who works from a pack older than the course's exercises (grader.service.packs), and what to
    do about it."""
    found = packs.stale_packs(state.engine, state.course)
    if not found:
        return ""
    rows = []
    for stale in found:
        named = ", ".join(stale.students[:30]) + (" ..." if len(stale.students) > 30 else "")
        rows.append(
            [e(stale.exercise), e(named), str(len(stale.students)), e(when(stale.last_seen, state))]
        )
    return (
        '<section><h2>Stale packs</h2><p class="late">These exercises changed after the pack '
        "these students work from was released: their own <code>grade</code> checks against "
        "the old checks, and the server grades with the new. Release the pack again "
        "(<code>grade release ... --out pack/</code>) and hand it out; each student is listed "
        "until they submit from a current pack.</p>"
        + table(["exercise", "students", "how many", "last seen"], rows)
        + "</section>"
    )


#: how long a worker that stopped as asked stays listed (a lost one stays an hour: look into it)
STOPPED_SHOWN = 300.0
#: the heartbeat interval of a worker registered before workers said theirs (a 30 s lease's third)
LEGACY_BEAT = 10.0


def _held(worker: dict[str, object], lost: bool) -> str:
    """The job a worker last said it held, and where that job is now: still this worker's
    (while it is alive or its lease runs), queued again, graded by another, or given up."""
    job, state, by = worker["job_id"], worker["job_state"], worker["job_worker"]
    if job is None:
        return "idle"
    if state == "running" and by == worker["id"]:
        return f"job {job}" + (
            " (its lease has not lapsed yet)" if lost or worker["stopped_at"] else ""
        )
    if state == "queued":
        return f"job {job}: queued again"
    if state == "running":
        return f"job {job}: being graded by {by}"
    if by == "reaper":
        return f"job {job}: given up ({worker['job_error']})"
    return "idle" if by == worker["id"] else f"job {job}: graded by {by}"


def _filters(query: TableQuery, rows: list[ClassRow], state: State) -> str:
    sections = sorted({r.section for r in rows if r.section})
    section = (
        ""
        if not sections
        else (
            '<label>section<select name="section"><option value="">all</option>'
            + "".join(
                f'<option{" selected" if s == query.section else ""}>{e(s)}</option>'
                for s in sections
            )
            + "</select></label>"
        )
    )
    missing = (
        '<label>nothing counted for<select name="missing"><option value="">(any)</option>'
        + "".join(
            f'<option{" selected" if a == query.missing else ""}>{e(a)}</option>'
            for a in state.course.assignments
        )
        + "</select></label>"
    )
    kept = carried({k: v for k, v in query.params().items() if k in ("sort", "order")})
    return (
        f'<form class="inline" method="get" action="/instructor">{kept}<label>name or id<input '
        f'type="search" name="q" value="{e(query.text)}" maxlength="200"></label>'
        f'{section}{missing}<button type="submit">Filter</button> <a href="/instructor">clear</a>'
        '</form>'
    )


def _table(rows: list[ClassRow], query: TableQuery, state: State) -> str:
    course = state.course
    columns = [
        ("name", "student"),
        ("id", "id"),
        ("section", "section"),
        *((f"a:{a}", a) for a in course.assignments),
        ("late", "late days used"),
        ("last", "last submission"),
        ("submissions", "submissions"),
    ]
    head = "".join(_header(key, label, query) for key, label in columns)
    body = []
    for row in rows:
        person = f'<a href="/instructor/students/{e(row.student)}">{e(row.name or row.student)}</a>'
        cells = [person, f'<span class="id">{e(row.student)}</span>', e(row.section)]
        for assignment, cell in row.cells.items():
            cells.append(_cell(assignment, cell, row.student))
        last = (
            f'<td class="nowrap"><a href="/instructor/submissions/{row.last_submission}">'
            f'{e(when(row.last_at, state))}</a></td>'
            if row.last_submission is not None
            else "none"
        )
        cells += [str(row.late_days_used), last, str(row.submissions)]
        body.append(
            "<tr>"
            + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells)
            + "</tr>\n"
        )
    if not rows:
        body.append(f'<tr><td colspan="{len(columns)}">No student matches.</td></tr>')
    return (
        f'<div class="scroll"><table class="class">\n<thead><tr>{head}</tr></thead>\n'
        f'<tbody>\n{"".join(body)}</tbody>\n</table></div>'
    )


def _cell(assignment: str, cell: Cell, student: str) -> str:
    """One counted score: a link to the submission it counts (or to the student's
    corrections, where it is the instructor's), marked late or set by hand."""
    if cell.submission is None and cell.score is None and not cell.excused:
        return '<td class="num none" title="no submission">-</td>'
    shown_score = (
        "excused"
        if cell.excused
        else f"{num(cell.score)}/{num(cell.max_score)}"
        if cell.score is not None
        else "waiting"
    )
    mark = (' <span class="late">late</span>' if cell.late else "") + (
        ' <span class="muted">by hand</span>' if cell.corrected else ""
    )
    link = (
        f"/instructor/submissions/{cell.submission}"
        if cell.submission is not None and not cell.corrected
        else f"/instructor/students/{e(student)}#corrections"
    )
    return (
        f'<td class="num"><a href="{link}" title="{e(assignment)}: {e(cell.why)}">'
        f'{e(shown_score)}</a>{mark}</td>'
    )


def _header(key: str, label: str, query: TableQuery) -> str:
    """A column's title, a link that sorts by it (again: the other way)."""
    descending = query.sort == key and not query.descending
    arrow = (" &#9660;" if query.descending else " &#9650;") if query.sort == key else ""
    link = urlencode(query.params(sort=key, order="desc" if descending else "asc"))
    sort = "descending" if query.descending else "ascending"
    return (
        f'<th scope="col"{f" aria-sort={chr(34)}{sort}{chr(34)}" if query.sort == key else ""}>'
        f'<a href="/instructor?{e(link)}">{e(label)}{arrow}</a></th>'
    )


def _regrade_form(rows: list[ClassRow], state: State) -> str:
    assignments = "".join(f"<option>{e(a)}</option>" for a in state.course.assignments)
    students = "".join(
        f'<option value="{e(r.student)}">{e(r.student)} {e(r.name)}</option>' for r in rows
    )
    return (
        '<h2>Regrade</h2><p class="muted">Grades every stored submission again with the exercises '
        'as they are now (after a fix to a test or an exercise), behind every new upload; what '
        'counts follows the new results.</p><form class="inline" method="post" '
        'action="/instructor/regrade"><label>assignment<select name="assignment"><option value="">'
        f'all</option>{assignments}</select></label><label>student<select name="student"><option '
        f'value="">all</option>{students}</select></label><button type="submit">Regrade</button>'
        '</form>'
    )


def _publish_form(state: State) -> str:
    if state.course.lti is None:
        return ""
    assignments = "".join(f"<option>{e(a)}</option>" for a in state.course.assignments)
    return (
        '<h2>The LMS</h2><p class="muted">Sends each student\'s counted score to the '
        "assignment's own column in the LMS's gradebook (its line item: course.toml's "
        "[lti.lineitems], the one its LMS link launches with, or the one the LMS holds for it, "
        "found or made); a score sent before and unchanged is not sent again. Before a "
        "student's deadline, you are asked first: their score tells them what the hidden "
        'checks gave.</p><form class="inline" method="post" action="/instructor/publish">'
        f'<label>assignment<select name="assignment">{assignments}</select></label>'
        '<button type="submit">Send the scores to the LMS</button></form>'
    )


def _confirm_publish(assignment: str, early: columns.Early) -> str:
    """What publishing before the deadline releases, and the choice: the students past it only, or
    all."""
    held = len(early.held)
    extended = f" ({early.extended} by an extension)" if early.extended else ""
    ready = early.students - held

    def button(choice: str, label: str) -> str:
        return (
            f'<form class="inline" method="post" action="/instructor/publish">'
            f'{carried({"assignment": assignment, "confirm": choice})}'
            f'<button type="submit">{e(label)}</button></form>'
        )

    return (
        f"<h1>Send {e(assignment)}'s scores before the deadline?</h1><p>The deadline of "
        f"{e(assignment)} has not passed for {held} of {early.students} students{extended}. "
        "Their scores count the hidden checks, which they are not shown before their "
        "deadline: a score sent now tells each of them what the hidden checks gave.</p>"
        + button("passed", f"Send the {ready} whose deadline has passed (hold back {held})")
        + button("all", f"Send all {early.students}: tell {held} their hidden checks' verdicts now")
        + '<p><a href="/instructor">Cancel</a>: nothing is sent.</p>'
    )


@access.instructor
async def class_csv_file(request: Request, who: Who) -> Response:
    state = state_of(request)
    query = table_query(request.query_params, state.course)

    def build() -> str:
        return class_csv(kept_rows(class_rows(state.engine, state.course), query), state.course)

    return Response(
        (await run_in_threadpool(build)).encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": 'attachment; filename="class.csv"',
            "Cache-Control": "no-store",
        },
    )


async def instructor_form(request: Request) -> tuple[State, dict[str, str]] | Response:
    """An instructor's POST: the server's state and
    the form's fields; or the page saying why not."""
    state = state_of(request)
    form = await fields(request)
    if form is None:
        return HTMLResponse(
            course_page(state, "Nothing changed", "<h1>The form is too big</h1>"), 413
        )
    return state, form


@access.instructor
async def regrade(request: Request, who: Who) -> Response:
    sent = await instructor_form(request)
    if isinstance(sent, Response):
        return sent
    state, form = sent
    assignment, student = form.get("assignment") or None, form.get("student") or None
    if assignment is not None and assignment not in state.course.assignments:
        return HTMLResponse(
            course_page(state, "Not a regrade", f"<h1>No assignment {e(assignment[:80])}</h1>"), 422
        )
    if student is not None and not await run_in_threadpool(_on_roster, state, student):
        return HTMLResponse(
            course_page(state, "Not a regrade", f"<h1>No student {e(student[:80])}</h1>"), 422
        )
    count = await run_in_threadpool(queue.enqueue_all, state.engine, assignment, student)
    entry = await run_in_threadpool(
        _audited, state, who.student, assignment or "", student or "", count
    )
    return RedirectResponse(f"/instructor?regrade={entry}", status_code=303)


def _audited(state: State, actor: str, assignment: str, student: str, count: int) -> int:
    with writing(state.engine) as db:
        return deadlines.record(
            db, actor, deadlines.REGRADE, assignment, student, "", f"{count} submission(s) queued"
        ).id


@access.instructor
async def publish(request: Request, who: Who) -> Response:
    """The counted scores of one assignment sent to its own column of the LMS's gradebook (AGS), as
    `grade gradebook --publish` does (grader.service.lti.columns); only changed scores are sent
    again. Before a student's deadline, it asks first and says what it releases to how many."""
    sent = await instructor_form(request)
    if isinstance(sent, Response):
        return sent
    state, form = sent
    course = state.course
    rules = course.assignments.get(form.get("assignment", ""))
    if rules is None or course.lti is None:
        return HTMLResponse(
            course_page(
                state,
                "Not sent",
                "<h1>Nothing was sent</h1><p>Name an assignment of a "
                "course with an [lti] platform.</p>",
            ),
            422,
        )
    choice = form.get("confirm", "")
    early = await run_in_threadpool(columns.before_deadline, state.engine, course, rules)
    if early.held and choice not in ("passed", "all"):
        asked = _confirm_publish(rules.id, early)
        return HTMLResponse(course_page(state, "Send the scores?", asked, CSS))
    try:
        said = await run_in_threadpool(_publish, state, who.student, rules, choice == "all")
    except GraderError as exc:
        return HTMLResponse(
            course_page(state, "Not sent", f"<h1>Nothing was sent</h1><p>{e(exc)}</p>"), 502
        )
    return RedirectResponse(f"/instructor?regrade={said}", status_code=303)


def _publish(state: State, actor: str, rules: Rules, release_hidden: bool) -> int:
    course = state.course
    assert course.lti is not None
    done = columns.publish(
        state.engine, course, rules, course.lti.platform, release_hidden=release_hidden
    )
    with writing(state.engine) as db:
        entry = deadlines.record(db, actor, deadlines.PUBLISH, rules.id, "", "", columns.said(done))
    return entry.id


def _on_roster(state: State, student: str) -> bool:
    with reading(state.engine) as db:
        return (
            db.execute(select(schema.students.c.id).where(schema.students.c.id == student)).first()
            is not None
        )


def routes() -> list[Route]:
    return [
        Route("/instructor", class_page),
        Route("/instructor/class.csv", class_csv_file),
        Route("/instructor/regrade", regrade, methods=["POST"]),
        Route("/instructor/publish", publish, methods=["POST"]),
    ]
