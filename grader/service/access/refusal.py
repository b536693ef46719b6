"""A refusal in the words of its door: JSON for the
API (/api/), a page of the course for the pages."""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, JSONResponse, Response

from grader.outputs.html_page import e
from grader.service.pages.layout import course_page
from grader.service.state import state_of

#: what a caller without a valid credential is told
SIGN_IN = (
    "no valid token: set AUTOGRADER_TOKEN, or token = \"...\" in grade-course.toml, to the token "
    "your instructor gave you (it may have been revoked: ask them for a new one)"
)


def refusal(
    connection: HTTPConnection,
    status: int,
    title: str,
    message: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """`message` as the API says it, or a page of
    the course titled `title` (401: how to sign in)."""
    if connection.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    if status == 401:
        body = (
            "<h1>Sign in</h1><p>Run <code>grade submit --login</code> and open the link it prints "
            "(it works once, for five minutes), or open the assignment from the LMS, in a window "
            "of its own.</p>"
        )
    else:
        body = f"<h1>{e(title)}</h1><p>{e(message[:1].upper() + message[1:])}.</p>"
    return HTMLResponse(course_page(state_of(connection), title, body), status, headers=headers)
