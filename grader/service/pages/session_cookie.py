"""The pages' session cookie: its name, and how a sign-in (a login link's, a launch's) sets it.

Over https it is a __Host- cookie, which only this host itself can set (Secure, Path=/, no
Domain), so that a page on a sibling site (students.example.edu beside grader.example.edu)
cannot plant its author's own session in a classmate's browser (cookie tossing: a login
CSRF), as a plain cookie with Domain=example.edu would; over https a plain one is not
read. Over plain http (loopback, a test) Secure would make the browser drop it.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from grader.service.tokens import SESSION_SECONDS

COOKIE = "grader_session"
HOST_COOKIE = "__Host-" + COOKIE
#: every name it goes by (the pages' state-changing
#: requests that carry one are asked where they come from)
NAMES = (COOKIE, HOST_COOKIE)


def cookie_name(request: HTTPConnection) -> str:
    """The session cookie's name for this request:
    over https, only the __Host- one is read or set."""
    return HOST_COOKIE if request.url.scheme == "https" else COOKIE


def set_session(response: Response, request: Request, session: str) -> None:
    """Set a sign-in's session cookie: the pages' alone
    (HttpOnly, SameSite=Strict), for SESSION_SECONDS."""
    response.set_cookie(
        cookie_name(request),
        session,
        max_age=SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
