"""How much one identity may ask of the server: at most IN_FLIGHT
requests at a time, and REQUESTS_PER_MINUTE a minute (uploads: the
course's uploads_per_minute), over the API and the pages alike.

Keyed on the identity the access layer resolved (the student a token, a session or a
launch names: grader.service.access.identity), never on how a credential was
written: the same token sent with other spacing or case, a session cookie sent twice
under one name, or a token beside its own session, are one student, counted once.

Why in flight as well as a minute: the rate limit counts requests, not how long each holds the
server. Within it, one student who asked for a report 24 times at once held the thread pool that
every other student's upload and report wait on. A long poll (`?wait=`) and an upload still arriving
each hold a place: `grade submit` needs one at a time, and retries a 429 after its Retry-After.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict, deque

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from grader.service.access.identity import Identity
from grader.service.access.refusal import refusal

#: requests one identity may have in flight at once
IN_FLIGHT = 4
#: the Retry-After of a request over IN_FLIGHT, in seconds
RETRY_AFTER = 1
#: requests other than uploads, per identity per minute (API and pages together)
REQUESTS_PER_MINUTE = 240
#: the window the per-minute limits count over, in seconds
WINDOW = 60.0


class Limits:
    """Each identity's requests in flight, and its
    recent requests of each kind (one process's counts)."""

    def __init__(self, in_flight: int = IN_FLIGHT) -> None:
        self.in_flight = in_flight
        #: identity -> requests in flight; an identity leaves when its last request is answered
        self.busy: Counter[str] = Counter()
        #: (identity, kind) -> the times of its requests in the last WINDOW
        self.recent: defaultdict[tuple[str, str], deque[float]] = defaultdict(deque)

    def enter(self, key: str) -> bool:
        """Take a place in flight for `key`; False (and
        nothing taken) when it holds in_flight already."""
        if self.busy[key] >= self.in_flight:
            if not self.busy[key]:
                del self.busy[key]
            return False
        self.busy[key] += 1
        return True

    def leave(self, key: str) -> None:
        self.busy[key] -= 1
        if self.busy[key] <= 0:
            del self.busy[key]

    def throttled(self, key: str, kind: str, limit: int) -> float | None:
        """Seconds until `key` may make another `kind` request, if it made `limit` in the
        last minute; else None (and this one is counted). A limit of 0 or less is no limit."""
        if limit <= 0:
            return None
        times = self.recent[(key, kind)]
        now = time.monotonic()
        while times and now - times[0] > WINDOW:
            times.popleft()
        if len(times) >= limit:
            return round(WINDOW - (now - times[0]), 1) + 0.1
        times.append(now)
        return None


#: where the process's Limits are kept in a request's scope, for the limits a route adds (uploads)
SCOPE_KEY = "grader.limits"


def limits_of(connection: HTTPConnection) -> Limits:
    found: Limits = connection.scope[SCOPE_KEY]
    return found


class Limited:
    """ASGI middleware, after authentication: at most IN_FLIGHT requests at a time per
    identity, and REQUESTS_PER_MINUTE a minute; one more is answered 429 with
    Retry-After at once, before any work. An anonymous request is not counted: it
    reaches nothing but what anyone may read, and its credential's lookup is its work."""

    def __init__(self, app: ASGIApp, in_flight: int = IN_FLIGHT) -> None:
        self.app = app
        self.limits = Limits(in_flight)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[SCOPE_KEY] = self.limits
        user = scope.get("user") if scope["type"] == "http" else None
        if not isinstance(user, Identity):
            await self.app(scope, receive, send)
            return
        limits, key = self.limits, user.who.student
        wait = limits.throttled(key, "request", REQUESTS_PER_MINUTE)
        if wait is not None:
            answer = refusal(
                HTTPConnection(scope),
                429,
                "Too many requests",
                f"too many requests: try again in {wait:.0f} s",
                {"Retry-After": str(int(wait) + 1)},
            )
            await answer(scope, receive, send)
            return
        if not limits.enter(key):
            answer = refusal(
                HTTPConnection(scope),
                429,
                "Too many requests at once",
                f"too many requests at once with this token (at most {limits.in_flight} in "
                "flight): try again in "
                f"{RETRY_AFTER} s",
                {"Retry-After": str(RETRY_AFTER)},
            )
            await answer(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            limits.leave(key)
