"""ASGI middleware: at most IN_FLIGHT requests at a time per credential (a bearer token or a session cookie); one
more is answered 429 with Retry-After at once, before any work.

Why: the rate limit counts requests a minute, not how long each holds the server. Within it, one student who asks
for a report 24 times at once held the thread pool that every other student's upload and report wait on. Each
credential is counted as sent, before it is looked up (that lookup is itself work in the pool); one that names
no one then gets its 401 as before. A long poll (`?wait=`) and an upload still arriving each hold a place:
`grade submit` needs one at a time, and retries a 429 after its Retry-After.
"""

from __future__ import annotations

import json
from collections import Counter

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

#: requests one credential may have in flight at once
IN_FLIGHT = 4
#: the Retry-After of a request over IN_FLIGHT, in seconds
RETRY_AFTER = 1


class PerCredential:
    """At most `limit` requests in flight per credential (the Authorization header, else a cookie of `cookies`)."""

    def __init__(self, app: ASGIApp, cookies: tuple[str, ...], limit: int = IN_FLIGHT) -> None:
        self.app = app
        self.cookies = cookies
        self.limit = limit
        #: credential -> requests in flight; a credential leaves when its last request is answered
        self.busy: Counter[str] = Counter()

    def credential(self, scope: Scope) -> str | None:
        headers = Headers(scope=scope)
        bearer = headers.get("authorization", "")
        if bearer.lower().startswith("bearer "):
            return "t:" + bearer[7:]
        cookie = headers.get("cookie", "")
        for part in cookie.split(";"):
            name, _, value = part.strip().partition("=")
            if name in self.cookies and value:
                return "c:" + value
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = self.credential(scope) if scope["type"] == "http" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        if self.busy[key] >= self.limit:
            body = json.dumps({"error": f"too many requests at once with this token (at most {self.limit} in "
                                        f"flight): try again in {RETRY_AFTER} s"}).encode()
            await send({"type": "http.response.start", "status": 429, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(RETRY_AFTER).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        self.busy[key] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.busy[key] -= 1
            if self.busy[key] <= 0:
                del self.busy[key]
