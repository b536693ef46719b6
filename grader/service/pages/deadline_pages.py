"""The instructor's deadlines page (/instructor/deadlines): each assignment's deadline and each
student's extension in force, where each comes from (course.toml, or set on this page: by whom,
when), forms that set, withdraw or give back to course.toml each one (grader.service.deadlines
keeps them in the store, over course.toml), and the audit log. Every form is a POST whose
Origin the server checks (grader.service.pages.origin); the page runs no script.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.outputs.html_page import e, table
from grader.outputs.students import Student
from grader.service import access, deadlines
from grader.service.config import DAY, Course
from grader.service.deadlines import Override
from grader.service.gradebook import roster
from grader.service.pages.class_pages import CSS, instructor_form, when
from grader.service.pages.layout import cards, carried, course_page
from grader.service.policy.audit import CONFIRM, Entry
from grader.service.policy.confirmation import confirm, digest
from grader.service.policy.release import in_words, newly_released
from grader.service.state import State, state_of
from grader.service.tokens import Who

#: the furthest an extension may reach past the class's
#: deadline, in days (a typo of a year is refused)
MAX_DAYS = 366


def _local(moment: float | None, course: Course) -> str:
    """A moment as a datetime-local input's value, in the course's zone."""
    return (
        ""
        if moment is None
        else datetime.fromtimestamp(moment, course.timezone).strftime("%Y-%m-%dT%H:%M")
    )


def _source(found: Override | None, state: State) -> str:
    if found is None:
        return '<span class="muted">course.toml</span>'
    return f"set on this page by {e(found.set_by)}, {e(when(found.set_at, state))}"


@access.instructor
async def deadlines_page(request: Request, who: Who) -> Response:
    state = state_of(request)
    entry = request.query_params.get("entry", "")
    return HTMLResponse(
        await run_in_threadpool(_html, state, int(entry) if entry.isdigit() else None)
    )


def _html(state: State, changed: int | None) -> str:
    course = state.course
    stored = {(x.assignment, x.student): x for x in deadlines.overrides(state.engine)}
    people = roster(state.engine)
    extensions = _extensions(state, stored, {p.id: p.name for p in people})
    entries = deadlines.audit(state.engine)
    notice = _notice(entries, changed)
    zone = datetime.now(course.timezone).strftime("%Z")
    body = (
        '<nav><a href="/instructor">&larr; class</a></nav><h1>Deadlines and extensions</h1>'
        + (f'<p class="notice">{e(notice)}</p>' if notice else "")
        + _held(state)
        + f'<p class="muted">Times are in the course\'s zone ({e(zone)}). What is set here is kept '
        "in the course's store over course.toml, applies at once to every process of the course, "
        "and is in the audit log below; course.toml stays the starting point.</p>"
        + "<h2>Deadlines</h2>"
        + cards(
            ["assignment", "opens", "deadline", "closes", "from", "change"],
            _deadlines(state, stored),
        )
        + '<p class="muted">An assignment closes (takes no more uploads) at course.toml\'s <code>'
        "closes</code>, else at the deadline plus the days late work can still count; a student's "
        "own closes as much later as their extension. A deadline set in the past asks first: it "
        "releases hidden results.</p>"
        + "<h2>Extensions</h2>"
        + (
            cards(["assignment", "student", "name", "their deadline", "from", "undo"], extensions)
            if extensions
            else "<p>No extension is granted.</p>"
        )
        + _grant_form(course.assignments, people)
        + "<h2>Audit log</h2>"
        + _audit_log(state, entries)
    )
    return course_page(state, "deadlines and extensions", body, CSS)


def _deadlines(state: State, stored: Mapping[tuple[str, str], Override]) -> list[list[str]]:
    """Each assignment's row: when it opens, its deadline and close, and where they come from."""
    course = state.course
    rows = []
    for rules in course.assignments.values():
        found = stored.get((rules.id, ""))
        reset = _button("reset", rules.id, "", "back to course.toml") if found else ""
        closes = course.closes_for(rules, "")
        rows.append(
            [
                e(rules.id),
                e(when(rules.opens, state)),
                e(when(rules.deadline, state)),
                e(when(closes, state)) if closes is not None else "never",
                _source(found, state),
                _form(rules.id, "", _local(rules.deadline, course), "Set") + reset,
            ]
        )
    return rows


def _extensions(
    state: State, stored: Mapping[tuple[str, str], Override], names: Mapping[str, str]
) -> list[list[str]]:
    """Each extension in force or withdrawn here: its student, their deadline, where it comes
    from, and how to undo it."""
    course, toml = state.course, state.live.current()
    rows = []
    for rules in course.assignments.values():
        students = set(rules.extensions)
        students.update(s for (a, s) in stored if a == rules.id and s)
        for student in sorted(students):
            found = stored.get((rules.id, student))
            moment = rules.extensions.get(student)
            if moment is None and found is None:
                continue
            undo = (
                _button("reset", rules.id, student, "back to course.toml")
                if found is not None
                else _button("none", rules.id, student, "withdraw")
            )
            if (
                found is not None
                and found.moment is not None
                and student not in toml.assignments[rules.id].extensions
            ):
                undo = _button("reset", rules.id, student, "withdraw")
            mine = (
                e(when(moment, state)) if moment is not None else "withdrawn (the class's deadline)"
            )
            if moment is not None and not rules.extended(student):
                mine += ' <span class="muted">(not after the class\'s deadline, which holds)</span>'
            source = _source(found, state)
            rows.append([e(rules.id), e(student), e(names.get(student, "")), mine, source, undo])
    return rows


def _notice(entries: Sequence[Entry], changed: int | None) -> str:
    """The change just made, named by its audit entry (never text from the query: a link could
    say anything)."""
    kinds = (deadlines.DEADLINE, deadlines.EXTENSION, CONFIRM)
    done = next((x for x in entries if x.id == changed and x.action in kinds), None)
    if done is None:
        return ""
    if done.action == CONFIRM:
        return "course.toml's edit is confirmed: it applies on every server within a second."
    whose = f" for {done.student}" if done.student else ""
    return f"{done.action} of {done.assignment}{whose}: {done.old} -> {done.new}"


def _grant_form(assignments: Iterable[str], people: Sequence[Student]) -> str:
    chosen = "".join(f"<option>{e(a)}</option>" for a in assignments)
    options = "".join(f'<option value="{e(p.id)}">{e(p.id)} {e(p.name)}</option>' for p in people)
    return (
        '<h3>Grant an extension</h3><form class="inline" method="post" '
        'action="/instructor/deadlines">'
        f'{carried({"action": "set"})}'
        f'<label>assignment<select name="assignment">{chosen}</select></label>'
        f'<label>student<select name="student">{options}</select></label>'
        '<label>until<input type="datetime-local" name="when" step="1"></label>'
        '<label>or days after the deadline<input type="number" name="days" min="0" '
        f'max="{MAX_DAYS}" step="any"></label><button type="submit">Grant</button></form>'
    )


def _audit_log(state: State, entries: Sequence[Entry]) -> str:
    log = [
        [
            f'<span class="nowrap">{e(when(x.at, state))}</span>',
            e(x.actor),
            e(x.action),
            e(x.assignment),
            e(x.student),
            e(x.old),
            e(x.new),
        ]
        for x in entries
    ]
    if not log:
        return "<p>Nothing was changed from the pages yet.</p>"
    return table(["when", "who", "what", "assignment", "student", "old", "new"], log)


def _form(assignment: str, student: str, value: str, label: str) -> str:
    return (
        f'<form class="inline" method="post" action="/instructor/deadlines">'
        f'{carried({"action": "set", "assignment": assignment, "student": student})}'
        f'<input type="datetime-local" name="when" step="1" value="{e(value)}" aria-label="new '
        f'deadline of {e(assignment)}"><button type="submit">{e(label)}</button></form>'
    )


def _button(action: str, assignment: str, student: str, label: str) -> str:
    return (
        '<form class="inline" method="post" action="/instructor/deadlines">'
        f'{carried({"action": action, "assignment": assignment, "student": student})}'
        f'<button type="submit">{e(label)}</button></form>'
    )


@access.instructor
async def change(request: Request, who: Who) -> Response:
    sent = await instructor_form(request)
    if isinstance(sent, Response):
        return sent
    state, form = sent
    course, toml = state.course, state.live.current()
    assignment, student, action = (
        form.get("assignment", ""),
        form.get("student", ""),
        form.get("action", ""),
    )
    if assignment not in course.assignments:
        return _refused(state, 422, f"There is no assignment {assignment[:80]!r}.")
    if student and student not in {p.id for p in await run_in_threadpool(roster, state.engine)}:
        return _refused(state, 422, f"There is no student {student[:80]!r} on the roster.")
    if action not in ("set", "reset", "none"):
        return _refused(state, 422, "Choose what to do: set, withdraw, or back to course.toml.")
    moment = (
        _moment(form, course, course.assignments[assignment].deadline, student)
        if action == "set"
        else None
    )
    if isinstance(moment, str):
        return _refused(state, 422, moment)
    change = deadlines.Change(
        assignment=assignment, student=student, moment=moment, reset=action == "reset"
    )
    released = await run_in_threadpool(_releases, state, toml, change)
    if released and form.get("confirm") != "yes":
        return HTMLResponse(_asked(state, form, released))
    note = f" (confirmed: it released {in_words(released)})" if released else ""
    save = deadlines.save
    entry = await run_in_threadpool(save, state.engine, toml, who.student, change, note)
    if state.stored is not None:
        state.stored.forget()  # this process's next request, the page that shows it, reads it
    return RedirectResponse(f"/instructor/deadlines?entry={entry.id}", status_code=303)


def _releases(state: State, toml: Course, change: deadlines.Change) -> dict[str, list[str]]:
    """What the change would release now: for each
    assignment, the students whose hidden results come out."""
    found = deadlines.overrides(state.engine)
    after = deadlines.in_force(toml, deadlines.proposed(found, change))
    return newly_released(
        deadlines.in_force(toml, found), after, [p.id for p in roster(state.engine)]
    )


def _asked(state: State, form: dict[str, str], released: dict[str, list[str]]) -> str:
    """The page that asks before a change releases hidden
    results: what, to how many, and the same form again."""
    asked = ("action", "assignment", "student", "when", "days")
    kept = carried({k: v for k, v in form.items() if k in asked})
    count = sum(len(v) for v in released.values())
    body = (
        '<nav><a href="/instructor/deadlines">&larr; deadlines</a></nav>'
        "<h1>This releases hidden results</h1>"
        "<p>The deadline this sets has passed: the hidden checks' results, and which submission "
        f"counts, come out at once to {count} student{'s' if count != 1 else ''}: "
        f"{e(in_words(released))}. Nothing was changed yet.</p>"
        f'<form class="inline" method="post" action="/instructor/deadlines">{kept}'
        f'{carried({"confirm": "yes"})}<button type="submit">Confirm: release '
        'them</button></form><p><a href="/instructor/deadlines">Cancel</a> (a typo? set the date '
        'again)</p>'
    )
    return course_page(state, "confirm the deadline", body, CSS)


@access.instructor
async def confirm_edit(request: Request, who: Who) -> Response:
    """An instructor's word that course.toml's held edit applies
    (grader.service.policy.confirmation)."""
    sent = await instructor_form(request)
    if isinstance(sent, Response):
        return sent
    state, form = sent
    held = state.live.held
    if held is None or digest(held[1]) != form.get("edit", ""):
        return _refused(
            state,
            409,
            "course.toml has changed since that page was drawn, or holds nothing to "
            "confirm: look again.",
        )
    entry = await run_in_threadpool(
        confirm, state.engine, who.student, held[1], state.live.problem or ""
    )
    return RedirectResponse(f"/instructor/deadlines?entry={entry.id}", status_code=303)


def _held(state: State) -> str:
    """course.toml's edit that waits for a confirmation, if any, with its button."""
    held = state.live.held
    if held is None:
        return ""
    return (
        f'<h2>course.toml waits for you</h2><p class="late">{e(state.live.problem or "")}</p>'
        '<form class="inline" method="post" action="/instructor/deadlines/confirm">'
        f'{carried({"edit": digest(held[1])})}'
        "<button type=\"submit\">Confirm course.toml's edit: release them</button></form>"
    )


def _moment(
    form: dict[str, str], course: Course, deadline: float | None, student: str
) -> float | str:
    """The moment the form asks for (a date and time in the course's
    zone, or days after the class's deadline), or what is wrong with it."""
    days, text = form.get("days", "").strip(), form.get("when", "").strip()
    if days and student:
        try:
            count = float(days)
        except ValueError:
            return f"{days[:20]!r} is not a number of days."
        if not math.isfinite(count) or not 0 <= count <= MAX_DAYS:
            return f"An extension is 0 to {MAX_DAYS} days."
        if deadline is None:
            return "This assignment has no deadline: give the extension as a date and time."
        return deadline + count * DAY
    if not text:
        return "Give a date and time (or, for an extension, a number of days)."
    try:
        moment = datetime.fromisoformat(text[:40])
    except ValueError:
        return f"{text[:40]!r} is not a date and time (2026-12-01T23:59)."
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=course.timezone)
    if not 2000 <= moment.year <= 2200:
        return f"{text[:40]!r} is not a year this course runs in."
    return moment.timestamp()


def _refused(state: State, status: int, message: str) -> HTMLResponse:
    body = (
        '<nav><a href="/instructor/deadlines">&larr; deadlines</a></nav><h1>Nothing was '
        f'changed</h1><p>{e(message)}</p>'
    )
    return HTMLResponse(course_page(state, "nothing changed", body), status)


def routes() -> list[Route]:
    return [
        Route("/instructor/deadlines", deadlines_page),
        Route("/instructor/deadlines", change, methods=["POST"]),
        Route("/instructor/deadlines/confirm", confirm_edit, methods=["POST"]),
    ]
