"""An instructor's corrections of what counts, on a student's page
(/instructor/students/ID#corrections): for each assignment, set the score by hand (with the reason
the student reads), choose the submission that counts, excuse the assignment, or give it back to the
rules; and the audit log's lines for that student. Each form is a POST whose Origin the server
checks (grader.service.pages.origin); the store keeps the correction and its audit line in one
transaction (grader.service.policy.corrections), and every process of the course follows it at once.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.core.compare import fmt_points
from grader.core.errors import GraderError
from grader.outputs.html_page import e, table
from grader.service import access
from grader.service.config import Correction
from grader.service.gradebook import roster
from grader.service.pages.class_pages import instructor_form, when
from grader.service.pages.layout import carried, course_page
from grader.service.policy import audit, corrections
from grader.service.standing import Counted, Row
from grader.service.state import State
from grader.service.tokens import Who

#: the choices of a correction's form, and their words
KINDS = (
    ("score", "set the score"),
    ("submission", "use this submission"),
    ("excused", "excuse"),
    ("clear", "back to the rules"),
)
#: the audit log's actions that are corrections
ACTIONS = (*corrections.ACTIONS.values(), corrections.CLEAR)


def section(state: State, student: str, rows: list[Row], counted: dict[str, Counted]) -> str:
    """The corrections part of a student's page: a form
    per assignment, and the audit log's lines for them."""
    forms = []
    for rules in state.course.assignments.values():
        mine = [row for row in rows if row.assignment == rules.id]
        choices = "".join(
            f'<option value="{row.id}">#{row.id} {e(when(row.received_at, state))} '
            f'{e(row.filename)}</option>'
            for row in mine
        )
        fix = counted[rules.id].correction
        kinds = "".join(f'<option value="{k}">{e(label)}</option>' for k, label in KINDS)
        forms.append(
            [
                e(rules.id),
                e(corrections.described(fix, rules)),
                '<form class="inline" method="post" action="/instructor/corrections">'
                f'{carried({"student": student, "assignment": rules.id})}'
                '<label>correction<select name="kind">'
                f'{kinds}</select></label><label>score (of {fmt_points(rules.points)})<input '
                f'type="number" name="score" min="0" max="{fmt_points(rules.points)}" step="any">'
                '</label><label>submission<select name="submission"><option value="">-</option>'
                f'{choices}</select></label><label>reason (the student reads it)<input type="text" '
                f'name="reason" maxlength="{corrections.MAX_REASON}"></label><button type="submit">'
                'Apply</button>'
                '</form>',
            ]
        )
    log = [
        [
            f'<span class="nowrap">{e(when(x.at, state))}</span>',
            e(x.actor),
            e(x.action),
            e(x.assignment),
            e(x.old),
            e(x.new),
        ]
        for x in audit.audit(state.engine, 500)
        if x.student == student and x.action in ACTIONS
    ]
    return (
        '<h2 id="corrections">Corrections</h2><p class="muted">What you set here takes the place '
        'of what the rules count for this student, in their pages, the class table, the gradebook '
        'and the LMS (publish again); the student reads the reason. A chosen submission still '
        'follows the late policy; a score set by hand does not.</p>'
        + table(["assignment", "in force", "change"], forms)
        + (table(["when", "who", "what", "assignment", "old", "new"], log) if log else "")
    )


@access.instructor
async def correct(request: Request, who: Who) -> Response:
    sent = await instructor_form(request)
    if isinstance(sent, Response):
        return sent
    state, form = sent
    course = state.course
    student, assignment, kind = (
        form.get("student", ""),
        form.get("assignment", ""),
        form.get("kind", ""),
    )
    rules = course.assignments.get(assignment)
    if rules is None:
        return _refused(state, student, f"There is no assignment {assignment[:80]!r}.")
    if student not in {p.id for p in await run_in_threadpool(roster, state.engine)}:
        return _refused(state, "", f"There is no student {student[:80]!r} on the roster.")
    fix: Correction | None = None
    if kind != "clear":
        found = corrections.checked(
            rules,
            kind,
            form.get("score", "").strip(),
            form.get("submission", "").strip(),
            form.get("reason", ""),
        )
        if isinstance(found, str):
            return _refused(state, student, found)
        fix = found
    try:
        entry = await run_in_threadpool(
            corrections.correct, state.engine, course, who.student, assignment, student, fix
        )
    except GraderError as exc:
        return _refused(state, student, str(exc))
    if state.stored is not None:
        state.stored.forget()  # this process's next request, the page that shows it, reads it
    return RedirectResponse(
        f"/instructor/students/{quote(student)}?entry={entry.id}#corrections", status_code=303
    )


def _refused(state: State, student: str, message: str) -> HTMLResponse:
    back = f"/instructor/students/{quote(student)}#corrections" if student else "/instructor"
    body = (
        f'<nav><a href="{e(back)}">&larr; back</a></nav><h1>Nothing was changed</h1><p>'
        f'{e(message)}</p>'
    )
    return HTMLResponse(course_page(state, "nothing changed", body), 422)


def routes() -> list[Route]:
    return [Route("/instructor/corrections", correct, methods=["POST"])]
