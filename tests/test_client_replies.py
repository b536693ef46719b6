"""grade submit's client against what sits between it and the course server: a reply cut short, a page that is
not the API. A real HTTP server on a loopback port plays the proxy; the real server's own replies are tested in
test_service_*.py."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest

from grader.core.errors import GraderError
from grader.service.client import Settings, call


class _Proxy(http.server.BaseHTTPRequestHandler):
    #: what each request in turn gets: "cut" (a reply that ends before its Content-Length), "html", or "json"
    plan: ClassVar[list[str]] = []
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        what = self.plan.pop(0) if self.plan else "json"
        self.seen.append(what)
        body = b'{"ok": true}' if what != "html" else b"<html><body>Sign in to the campus Wi-Fi</body></html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body) + (100 if what == "cut" else 0)))
        self.end_headers()
        self.wfile.write(body)
        if what == "cut":
            self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def proxy() -> Iterator[tuple[Settings, type[_Proxy]]]:
    handler = type("Handler", (_Proxy,), {"plan": [], "seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Settings(f"http://127.0.0.1:{server.server_address[1]}", "t0ken"), handler
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_a_reply_cut_short_is_asked_for_again_not_a_traceback(proxy: tuple[Settings, type[_Proxy]]) -> None:
    where, handler = proxy
    handler.plan[:] = ["cut", "cut"]
    assert call(where, "GET", "/api/status", retries=3) == (200, {"ok": True})
    assert handler.seen == ["cut", "cut", "json"]


def test_replies_cut_short_every_time_end_in_a_message_that_says_what_to_do(
        proxy: tuple[Settings, type[_Proxy]]) -> None:
    where, handler = proxy
    handler.plan[:] = ["cut"] * 3
    with pytest.raises(GraderError, match=r"cannot reach the course server .* nothing was lost"):
        call(where, "GET", "/api/status", retries=1)


def test_a_page_that_is_not_the_api_is_named_with_what_to_check(proxy: tuple[Settings, type[_Proxy]]) -> None:
    where, handler = proxy
    handler.plan[:] = ["html"]
    with pytest.raises(GraderError, match=r"not its API \(b'<html><body>Sign in.*Check the address"):
        call(where, "GET", "/api/status")
