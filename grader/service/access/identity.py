"""Who a request's credential names: one authentication backend (Starlette's
AuthenticationMiddleware) for the API and the pages. A bearer token (`grade submit`), else
the pages' session cookie: a login link's, while its token lives, or a launch's, while its
deployment is accepted and the roster keeps the student's LMS id. A credential that names no
one leaves the request anonymous (a bearer token that fails is never followed by the cookie).

The identity is the student the credential names, however it was written: the token with other
spacing or case in its scheme, or a cookie sent twice under one name (Starlette reads the
last), is the same student, and every limit counts the student (grader.service.access.limits).

The session cookie is set here too, by a sign-in (a login link's, a launch's). Over https it is
a __Host- cookie, which only this host itself can set (Secure, Path=/, no Domain), so that a page
on a sibling site (students.example.edu beside grader.example.edu) cannot plant its author's own
session in a classmate's browser (cookie tossing: a login CSRF), as a plain cookie with
Domain=example.edu would; over https a plain one is not read. Over plain http (loopback, a test)
Secure would make the browser drop it.
"""

from __future__ import annotations

from starlette.authentication import AuthCredentials, AuthenticationBackend, BaseUser
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from grader.service.state import State, state_of
from grader.service.tokens import SESSION_SECONDS, Who, who_has, who_is

COOKIE = "grader_session"
HOST_COOKIE = "__Host-" + COOKIE


class Identity(BaseUser):
    """The holder of the request's credential (Starlette's `request.user`)."""

    def __init__(self, who: Who) -> None:
        self.who = who

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def display_name(self) -> str:
        return self.who.student

    @property
    def identity(self) -> str:
        return self.who.student


class Backend(AuthenticationBackend):
    """Resolves a request's credential; its scopes: authenticated, the
    role (student or instructor), and how it came (token or session)."""

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        who = await resolve(conn)
        if who is None:
            return None
        scopes = ["authenticated", who.role, "session" if who.by_session else "token"]
        return AuthCredentials(scopes), Identity(who)


async def resolve(conn: HTTPConnection) -> Who | None:
    """Who the credential of `conn` names now, or None."""
    state = state_of(conn)
    scheme, _, token = conn.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer":
        return await run_in_threadpool(who_has, state.engine, token.strip())
    session = conn.cookies.get(cookie_name(conn))
    if not session:
        return None
    who = await run_in_threadpool(who_is, state.engine, session)
    if who is not None and who.platform and not _accepted(state, who.platform):
        return None  # its deployment is not accepted now, whether or not the store has followed yet
    return who


def _accepted(state: State, platform: str) -> bool:
    lti = state.live.in_force().lti
    return lti is not None and platform in lti.deployments()


async def still_holds(conn: HTTPConnection, who: Who) -> bool:
    """Whether the credential of `conn` still names `who` (a long poll asks while it waits)."""
    now = await resolve(conn)
    return now is not None and now.student == who.student and now.role == who.role


def cookie_name(request: HTTPConnection) -> str:
    """The session cookie's name for this request: over https, only the __Host- one is read or
    set."""
    return HOST_COOKIE if request.url.scheme == "https" else COOKIE


def set_session(response: Response, request: Request, session: str) -> None:
    """Set a sign-in's session cookie: the pages' alone (HttpOnly, SameSite=Strict), for
    SESSION_SECONDS."""
    response.set_cookie(
        cookie_name(request),
        session,
        max_age=SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
