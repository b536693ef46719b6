"""Who a request's credential names: one authentication backend (Starlette's
AuthenticationMiddleware) for the API and the pages. A bearer token (`grade submit`), else
the pages' session cookie: a login link's, while its token lives, or a launch's, while its
deployment is accepted and the roster keeps the student's LMS id. A credential that names no
one leaves the request anonymous (a bearer token that fails is never followed by the cookie).

The identity is the student the credential names, however it was written: the token with other
spacing or case in its scheme, or a cookie sent twice under one name (Starlette reads the
last), is the same student, and every limit counts the student (grader.service.access.limits).
"""

from __future__ import annotations

from starlette.authentication import AuthCredentials, AuthenticationBackend, BaseUser
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from grader.service.pages.session_cookie import cookie_name
from grader.service.state import State, state_of
from grader.service.tokens import Who, who_has, who_is


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
