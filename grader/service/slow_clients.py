"""uvicorn's HTTP/1.1 protocol with a deadline on what the client sends: each request
must arrive whole (its headers and its body) within REQUEST_SECONDS of the connection,
or of the end of the previous response; else the connection is closed. And the moment
each request did arrive whole, which is an upload's time (grader.service.policy.clock):
stamped as the server process reads its last byte, before the request waits on anything
(the rules' refresh, its credential's look-up, the store's writer).

Why: uvicorn closes an idle connection only after a response (its keep-alive), and any byte
puts that off. A connection that sends nothing, or a header or a body a byte every few seconds
(slowloris), was kept for ever: one client on the internet could hold every file descriptor of
`grade serve` (20,000 here) with idle sockets and no request at all. The deadline does not cut
a response: a request whose last byte arrived is the app's to answer (a report waited for,
`?wait=60`). A proxy in front (nginx's client_header_timeout and limit_conn) also bounds how
many connections one client holds; this bounds how long each lasts without one.
"""

from __future__ import annotations

import asyncio
import time

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from grader.service.policy.clock import ARRIVED

#: the longest a request may take to arrive whole: a course's largest upload (256 KiB by
#: default) over a link of 10 KB/s, and a request's headers (one packet) many times over
REQUEST_SECONDS = 30.0


class Timely(H11Protocol):
    """H11Protocol whose every request must arrive within REQUEST_SECONDS."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        # before uvicorn reads a pipelined request, which is then within this deadline too
        self._arm()
        super().on_response_complete()

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        # the request's last byte was read just now (uvicorn reads up to
        # 64 KiB ahead of the app; a larger body's last byte once the
        # app has read the rest): its time, kept where the app reads it
        if cycle is not None and not cycle.more_body and ARRIVED not in cycle.scope["state"]:
            cycle.scope["state"][ARRIVED] = time.time()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self._late)

    def _late(self) -> None:
        if (
            self.conn.their_state in (h11.DONE, h11.MUST_CLOSE)
            and self.cycle is not None
            and not self.cycle.response_complete
        ):
            # the request arrived whole and is being answered (MUST_CLOSE: it said "Connection:
            # close", as urllib and so grade submit do: its report waited for was cut at
            # REQUEST_SECONDS)
            return
        if not self.transport.is_closing():
            self.transport.close()
