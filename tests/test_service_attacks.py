"""Attacks on the course server by a student who has read its code, and by anyone on the internet: a real `grade
serve` on a loopback port (on SQLite and on PostgreSQL where the store decides), requests made as a browser, a
script or an attacker's page would make them; each attack fails, and changes nothing."""

from __future__ import annotations

import http.server
import re
import subprocess
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from browser import FLAGS, Driven, chromium
from service_helpers import Server, course_folder, postgres, serving
from test_service_credentials import EVIL, Answer, call, reissue

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = course_folder(tmp_path_factory.mktemp(f"attack-{request.param}"), deadline=deadline,
                           students=["s1", "s2"])
    with postgres() if request.param == "postgresql" else _nothing() as pg:
        if pg is not None:
            toml = folder / "course.toml"
            toml.write_text(f'database = "{pg.url}"\n' + toml.read_text())
        server = Server(folder, workers=0).start()  # nothing here needs grading
        try:
            yield server
        finally:
            server.stop()


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def login_path(server: Server, token: str) -> str:
    """A one-time login link's path, made with the token (as `grade submit --login` does)."""
    made = call(server, "POST", "/api/login-link", token=token, body=b"")
    assert made.status == 200, made.body
    return urllib.parse.urlsplit(str(made.json()["url"])).path


def cookie_of(answer: Answer) -> str:
    return answer.headers.get("set-cookie", "").split(";")[0].partition("=")[2]


def test_a_login_link_sent_to_a_classmate_asks_before_it_signs_in(served: Server) -> None:
    """Login CSRF: s1 sends their own link to s2. Opening it used to sign s2's browser in as s1 (whose account
    then got whatever s2 uploaded from the pages); now the link's page names s1 and signs in nobody, and only its
    own form, posted from this server's page, spends it."""
    tokens = reissue(served.course)
    path = login_path(served, tokens["s1"])
    for _ in range(2):  # a look at the link (s2, a mail scanner, a chat's preview) spends nothing
        opened = call(served, "GET", path)
        assert opened.status == 200, opened.body
        assert "set-cookie" not in opened.headers
        assert b"Sign in as Student s1 (s1)?" in opened.body and b"If you are not s1, do not sign in" in opened.body
        assert b'<form method="post">' in opened.body
        assert opened.headers["x-frame-options"] == "DENY"  # nor framed by another site, to have s2 click it
        assert "frame-ancestors 'none'" in opened.headers["content-security-policy"]
        assert opened.headers["referrer-policy"] == "same-origin" and opened.headers["cache-control"] == "no-store"
    # another site's page posting the form for s2, or a request that says nowhere: refused, and nothing spent
    for headers in ({"Origin": EVIL}, {"Referer": f"{EVIL}/x.html"}, {}, {"Origin": "null"},
                    {"Origin": served.url.replace("127.0.0.1", "localhost")},
                    {"Referer": f"http://{served.url.removeprefix('http://')}@evil.example/"}):
        forged = call(served, "POST", path, body=b"", headers=headers)
        assert forged.status == 403 and "set-cookie" not in forged.headers, (headers, forged.body)
    assert call(served, "GET", path).status == 200  # still s1's to use
    signed = call(served, "POST", path, body=b"", headers={"Origin": served.url})
    assert signed.status == 303 and signed.headers["location"] == "/me"
    session = cookie_of(signed)
    assert call(served, "GET", "/api/status", cookie=session).json()["student"] == "s1"
    assert call(served, "GET", path).status == 403  # spent: once
    assert call(served, "POST", path, body=b"", headers={"Origin": served.url}).status == 403
    # a revoked token's link names nobody either
    late = login_path(served, tokens["s2"])
    reissue(served.course)
    assert call(served, "GET", late).status == 403


def test_another_sites_page_cannot_spend_a_login_link_in_a_browser(tmp_path: Path) -> None:
    """The same attack in headless Chromium: a page of another origin that posts the link's form at once (the
    attacker's, with a script) is refused by what the browser itself says in Origin; the link's own page, opened
    by the browser, names whom it signs in and sets no cookie."""
    browser = chromium()
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = course_folder(tmp_path / "course", deadline=deadline, students=["s1", "s2"])
    with serving(course, workers=0) as server:
        path = login_path(server, reissue(course)["s1"])
        html = (f'<form method="post" action="{server.url}{path}"></form>'
                "<script>document.forms[0].submit()</script>").encode()
        with _site(html) as attacker:
            dom = _dump(browser, attacker)
        assert "Not signed in" in dom and "another site" in dom, dom[-2000:]
        assert call(server, "GET", path).status == 200  # not spent
        with Driven() as s1:  # the link's own student: opens it, reads whom it signs in, clicks
            asked = s1.open(server.url + path)
            assert "Sign in as Student s1 (s1)?" in asked and "do not sign in" in asked
            assert call(server, "GET", path).status == 200  # opening it spent nothing
            page = s1.click("form button")  # the browser's own POST, its own Origin: accepted
            assert "Autograd test course: s1" in page and "Your submissions" in page, page[-2000:]
        assert call(server, "GET", path).status == 403


@contextmanager
def _site(html: bytes) -> Iterator[str]:
    """An attacker's site on loopback (another origin than the server's): its one page, whatever the path."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *_: object) -> None:
            return

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{site.server_address[1]}/evil.html"
    finally:
        site.shutdown()
        site.server_close()


def _dump(browser: str, url: str) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                               "--dump-dom", url], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return re.sub(r"\s+", " ", done.stdout)
