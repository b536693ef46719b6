"""The pages' sign-in with a one-time login link (`grade submit
--login`): GET /login/CODE says whom the link signs in and asks; only the
POST of that page's own form spends the link and sets the session cookie.

Why ask: a link signs in whoever opens it as the student whose token made it. Were the GET to sign
in, a student could send their own link to a classmate, whose browser would then be the sender's,
and whatever the classmate uploaded from the pages would land in the sender's account (login
CSRF). The page names the student, and the POST must come from it (its Origin, else its Referer,
names this server: grader.service.pages.origin), so another site's page cannot submit it for the
classmate, nor frame it to have them click (frame-ancestors 'none'). A GET that spends nothing
also leaves the link to its student when a mail scanner or a chat's preview fetches it first.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.outputs.html_page import e
from grader.service import access
from grader.service.access.identity import set_session
from grader.service.pages.layout import course_page
from grader.service.pages.origin import elsewhere
from grader.service.state import State, state_of
from grader.service.tokens import link_holder, use_link

#: the confirmation's headers: not cached, its URL (the code) sent to no other
#: site ("no-referrer" would make the browser send its form with Origin: null,
#: which is refused); no frame, as every page (grader.service.access)
_GUARDED = {"Cache-Control": "no-store", "Referrer-Policy": "same-origin"}


def _spent(state: State) -> HTMLResponse:
    return HTMLResponse(
        course_page(
            state,
            "Link used",
            "<h1>This link has expired or was used</h1><p>Run <code>"
            "grade submit --login</code> again for a new one.</p>",
        ),
        403,
        headers=_GUARDED,
    )


@access.anyone  # the link's code is the credential
async def ask(request: Request) -> Response:
    state = state_of(request)
    holder = await run_in_threadpool(link_holder, state.engine, request.path_params["code"])
    if holder is None:
        return _spent(state)
    who = e(holder.student)
    named = f"{e(holder.name)} ({who})" if holder.name and holder.name != holder.student else who
    body = (
        f"<h1>Sign in as {named}?</h1>"
        f"<p>This link signs this browser in as <strong>{who}</strong>"
        f"{', an instructor' if holder.role == 'instructor' else ''}: it was made by <code>grade "
        f"submit --login</code> with {who}'s token.</p>"
        f"<p><strong>If you are not {who}, do not sign in</strong>: close this page. Someone sent "
        "you their link, and what you submitted here would be theirs.</p>"
        f'<form method="post"><button type="submit">Sign in as {who}</button></form>'
    )
    return HTMLResponse(course_page(state, f"sign in as {holder.student}?", body), headers=_GUARDED)


@access.anyone
async def sign_in(request: Request) -> Response:
    state = state_of(request)
    why = elsewhere(request)
    if why is not None:
        return HTMLResponse(
            course_page(
                state,
                "not signed in",
                f"<h1>Not signed in</h1><p>{e(why)}: open the "
                "link itself and sign in on its page.</p>",
            ),
            403,
            headers=_GUARDED,
        )
    session = await run_in_threadpool(use_link, state.engine, request.path_params["code"])
    if session is None:
        return _spent(state)
    response = RedirectResponse("/me", status_code=303)
    set_session(response, request, session)
    return response


def routes() -> list[Route]:
    return [
        Route("/login/{code}", ask, methods=["GET"], name="login"),
        Route("/login/{code}", sign_in, methods=["POST"]),
    ]
