"""Who may frame an answer, in its HTTP headers (a CSP in a `<meta>` cannot say it: browsers
ignore frame-ancestors there). Every answer carries `Content-Security-Policy: frame-ancestors
'none'` and `X-Frame-Options: DENY`, except an LMS route's (grader.service.access.declaration),
which the registered platform's pages may frame (grader.service.lti.lti_config.frame_origins),
and nothing else: no X-Frame-Options, which cannot name an origin.

Why: a page of another site, a sibling host included (SameSite=Strict
does not stop a same-site frame), that frames an instructor's page
under a decoy has their click change what the page's form changes.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grader.service.access.declaration import SCOPE_KEY, Access, Caller
from grader.service.lti.lti_config import frame_origins
from grader.service.state import State


class Framed:
    """ASGI middleware, outermost: every answer's frame
    headers, from its route's declaration (none: no frame)."""

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                del headers["x-frame-options"]
                ancestors = self.ancestors(scope.get(SCOPE_KEY))
                headers.append("content-security-policy", f"frame-ancestors {ancestors}")
                if ancestors == "'none'":
                    headers.append("x-frame-options", "DENY")
            await send(message)

        await self.app(scope, receive, framed)

    def ancestors(self, declaration: object) -> str:
        if not isinstance(declaration, Access) or declaration.caller is not Caller.LMS:
            return "'none'"
        lti = self.state.live.in_force().lti
        origins = frame_origins(lti) if lti is not None else ()
        return " ".join(origins) or "'none'"
