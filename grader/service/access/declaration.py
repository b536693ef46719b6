"""Each route's declaration of who may call it, and the decorators that make it and enforce it (the
how-to is grader.service.access's docstring). A declaration is kept for the route table's test and
for the frames an answer allows; `check` refuses an app with a route that declares nothing.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from starlette.authentication import has_required_scope
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from grader.service.access.identity import Identity
from grader.service.access.limits import limits_of
from grader.service.access.refusal import SIGN_IN, refusal
from grader.service.pages.origin import SAFE_METHODS, elsewhere
from grader.service.state import state_of
from grader.service.tokens import Who


class Caller(enum.Enum):
    """Who a route is for."""

    ANYONE = "anyone"
    LMS = "lms"
    STUDENT = "student"
    INSTRUCTOR = "instructor"


@dataclass(frozen=True, slots=True)
class Access:
    """A route's declaration: who may call it, and what more it asks."""

    caller: Caller
    #: the token itself, not a session (a session never makes another credential)
    token_only: bool = False
    #: counted against the course's uploads_per_minute
    uploads: bool = False

    def scopes(self) -> list[str]:
        """What the caller's credentials must hold (starlette.authentication's scopes)."""
        needed = {
            Caller.STUDENT: ["authenticated"],
            Caller.INSTRUCTOR: ["authenticated", "instructor"],
        }
        return needed.get(self.caller, []) + (["token"] if self.token_only else [])


#: where a route's declaration is kept in the request's scope, for the frames its answer allows
SCOPE_KEY = "grader.access"
#: endpoint -> its declaration
_DECLARED: dict[object, Access] = {}

Open = Callable[[Request], Awaitable[Response]]
Guarded = Callable[[Request, Who], Awaitable[Response]]


def declared(endpoint: object) -> Access | None:
    """The declaration of a route's endpoint, if it made one."""
    return _DECLARED.get(endpoint)


def open_to(caller: Caller) -> Callable[[Open], Open]:
    """Declare an endpoint that asks no credential (ANYONE,
    LMS): it never reads the caller's cookie or token."""
    assert caller in (Caller.ANYONE, Caller.LMS)
    declaration = Access(caller)

    def declare(endpoint: Open) -> Open:
        @functools.wraps(endpoint)
        async def answered(request: Request) -> Response:
            request.scope[SCOPE_KEY] = declaration
            return await endpoint(request)

        _DECLARED[answered] = declaration
        return answered

    return declare


def allow(
    caller: Caller, *, token_only: bool = False, uploads: bool = False
) -> Callable[[Guarded], Open]:
    """Declare an endpoint for a signed-in caller (STUDENT,
    INSTRUCTOR): it runs only for them, given `who`."""
    assert caller in (Caller.STUDENT, Caller.INSTRUCTOR)
    declaration = Access(caller, token_only=token_only, uploads=uploads)

    def declare(endpoint: Guarded) -> Open:
        @functools.wraps(endpoint)
        async def guarded(request: Request) -> Response:
            request.scope[SCOPE_KEY] = declaration
            refused = _refused(request, declaration)
            if refused is not None:
                return refused
            identity: Identity = request.user
            return await endpoint(request, identity.who)

        _DECLARED[guarded] = declaration
        return guarded

    return declare


anyone = open_to(Caller.ANYONE)
lms = open_to(Caller.LMS)
student = allow(Caller.STUDENT)
instructor = allow(Caller.INSTRUCTOR)


def _refused(request: Request, declaration: Access) -> Response | None:
    """The answer to a request its route's declaration does not admit, or None where it does."""
    if not request.user.is_authenticated:
        return refusal(request, 401, "Sign in", SIGN_IN)
    if not has_required_scope(request, declaration.scopes()):
        if (
            not has_required_scope(request, ["instructor"])
            and declaration.caller is Caller.INSTRUCTOR
        ):
            return refusal(request, 403, "Instructors only", "only an instructor may do this")
        return refusal(
            request,
            403,
            "Not with a session",
            "this needs your token (grade submit --login), not a page's session",
        )
    who: Who = request.user.who
    if who.by_session and request.method not in SAFE_METHODS:
        why = elsewhere(request)
        if why is not None:
            return refusal(request, 403, "Not from here", why)
    if declaration.uploads:
        course = state_of(request).course
        wait = limits_of(request).throttled(who.student, "upload", course.uploads_per_minute)
        if wait is not None:
            return refusal(
                request,
                429,
                "Too many uploads",
                f"too many uploads: try again in {wait:.0f} s",
                {"Retry-After": str(int(wait) + 1)},
            )
    return None


def check(routes: Iterable[BaseRoute]) -> None:
    """Refuse an app with a route that declares no access: nothing is reachable by default."""
    missing = [
        route.path
        for route in routes
        if isinstance(route, Route) and declared(route.endpoint) is None
    ]
    missing += [repr(route) for route in routes if not isinstance(route, Route)]
    if missing:
        raise RuntimeError(
            f"routes without an access declaration (grader.service.access): {', '.join(missing)}"
        )
