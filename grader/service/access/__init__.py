"""Who may call what: the course server's one access layer.

Every route declares who may call it, with one of these
decorators on its endpoint (grader.service.access.declaration):

    # no credential asked: the course's home, a login link's page (its code is the credential),
    # the tool's public key
    @access.anyone
    # the LMS's side of a launch: authenticated by the platform's signed messages, never by a
    # cookie or token; the only pages an LMS may frame
    @access.lms
    # anyone signed in, each to their own data only (the endpoint takes `who` and shows nothing of
    # another's); an instructor may call it too
    @access.student
    # the course's instructors only
    @access.instructor

    @access.student
    async def my_page(request: Request, who: Who) -> Response: ...

`access.allow(Caller.STUDENT, token_only=True)` asks for the token itself (a session may not
make a new credential); `uploads=True` counts the course's uploads_per_minute. A student's
or instructor's endpoint takes `(request, who)`; the others take the request alone. The app
refuses to start with a route that declares nothing (`check`), and
tests/test_service_access.py calls every route of the app as an anonymous caller, a student,
another student and the instructor, and checks each answer against its declaration.

One authentication backend (Starlette's AuthenticationMiddleware, grader.service.access.identity)
resolves the credential a request carries to one identity before any route runs: a bearer token
(`grade submit`), else the pages' session cookie (a login link's, or a launch's, whose deployment
must be accepted now). A credential that names no one leaves the request anonymous; it never falls
back to another. The rest is keyed on that identity: requests in flight and a minute for the API and
the pages alike, and uploads a minute (grader.service.access.limits); a long poll asks `still_holds`
while it waits, so that it ends when its credential does. A request made with the session cookie
that changes something must come from this server's own pages (grader.service.pages.origin).

Frames (grader.service.access.frames): every answer says who may frame it in its HTTP
headers (a `<meta>` cannot): `frame-ancestors 'none'` and `X-Frame-Options: DENY`,
except an LMS route's, which the registered platform's pages may frame and nothing else.
"""

from __future__ import annotations

from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware

from grader.service.access.declaration import (
    Access,
    Caller,
    allow,
    anyone,
    check,
    declared,
    instructor,
    lms,
    open_to,
    student,
)
from grader.service.access.frames import Framed
from grader.service.access.identity import Backend, Identity, resolve, still_holds
from grader.service.access.limits import Limited
from grader.service.access.refusal import refusal

__all__ = [
    "Access",
    "Caller",
    "Framed",
    "Identity",
    "allow",
    "anyone",
    "check",
    "declared",
    "instructor",
    "lms",
    "middleware",
    "open_to",
    "refusal",
    "resolve",
    "still_holds",
    "student",
]


def middleware() -> list[Middleware]:
    """The access layer's middleware, in order: who the credential names, then their limits."""
    return [Middleware(AuthenticationMiddleware, backend=Backend()), Middleware(Limited)]
