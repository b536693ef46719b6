"""Attacks on the course server by a student who has read its code, and by anyone on the internet: a real `grade
serve` on a loopback port (on SQLite and on PostgreSQL where the store decides), requests made as a browser, a
script or an attacker's page would make them; each attack fails, and changes nothing."""

from __future__ import annotations

import http.server
import re
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from browser import FLAGS, Driven, chromium
from service_helpers import Server, course_folder, instructor_token, postgres, serving
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


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A course on SQLite, for the attacks the store does not decide."""
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    with serving(course_folder(tmp_path_factory.mktemp("attack-plain"), deadline=deadline, students=["s1", "s2"],
                               per_day=50),
                 workers=0) as server:
        yield server


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


def signed_in(server: Server, token: str, headers: dict[str, str] | None = None) -> Answer:
    """The answer to the login link's form, posted from its page (`headers` added: a TLS proxy's)."""
    path = login_path(server, token)
    assert call(server, "GET", path, headers=headers).status == 200
    return call(server, "POST", path, body=b"", headers={"Origin": server.url, **(headers or {})})


def test_the_session_cookie_is_the_pages_alone_and_no_sibling_site_can_plant_one(plain: Server) -> None:
    """Cookie tossing: a page on a sibling site (students.example.edu beside grader.example.edu) may set a cookie
    for the whole domain, and so plant its author's own session in a classmate's browser (the login CSRF again).
    Over https the session is a __Host- cookie, which only this host can set, and a plain one is not read."""
    tokens = reissue(plain.course)
    answer = signed_in(plain, tokens["s1"])
    name, _, value = answer.headers["set-cookie"].split(";")[0].partition("=")
    attributes = {a.strip().split("=")[0].lower() for a in answer.headers["set-cookie"].split(";")[1:]}
    assert name == "grader_session" and len(value) >= 43
    # over plain http (on loopback) Secure would make the browser drop it
    assert {"httponly", "max-age", "path", "samesite"} <= attributes and not attributes & {"secure", "domain"}
    assert "Path=/;" in answer.headers["set-cookie"] + ";" and "SameSite=strict" in answer.headers["set-cookie"]
    # behind a TLS proxy (on loopback, whose X-Forwarded-Proto uvicorn trusts)
    tls = {"X-Forwarded-Proto": "https"}
    secure = signed_in(plain, tokens["s1"], tls)
    name, _, planted = secure.headers["set-cookie"].split(";")[0].partition("=")
    attributes = {a.strip().split("=")[0].lower() for a in secure.headers["set-cookie"].split(";")[1:]}
    assert name == "__Host-grader_session" and {"secure", "httponly", "path"} <= attributes, secure.headers
    assert "domain" not in attributes and "Path=/;" in secure.headers["set-cookie"] + ";"
    assert call(plain, "GET", "/api/status", headers={**tls, "Cookie": f"__Host-grader_session={planted}"}
                ).json()["student"] == "s1"
    # s1's valid session, planted in s2's browser under the plain name by a sibling site: read by nobody
    for path in ("/api/status", "/me"):
        assert call(plain, "GET", path, headers={**tls, "Cookie": f"grader_session={value}"}).status == 401
    # session fixation: a session id the attacker chose, sent along with the login, is never the one set
    fixed = call(plain, "POST", login_path(plain, tokens["s2"]), body=b"",
                 headers={"Origin": plain.url, "Cookie": "grader_session=chosen-by-the-attacker"})
    assert fixed.status == 303 and cookie_of(fixed) not in ("", "chosen-by-the-attacker")
    assert call(plain, "GET", "/api/status", cookie="chosen-by-the-attacker").status == 401
    # and a login code is 256 random bits: 43 characters of the URL-safe alphabet, guessed by nobody
    code = login_path(plain, tokens["s2"]).rsplit("/", 1)[1]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", code)
    assert call(plain, "GET", f"/login/{code[:-1]}{'A' if code[-1] != 'A' else 'B'}").status == 403


def test_a_pages_request_from_elsewhere_is_refused_however_it_names_itself(plain: Server) -> None:
    """Origin and Referer, spelled to slip past a string comparison: another port, a host with this one's name
    as a prefix, this host as the userinfo of another's URL, a bearer header that names no token. Each refused
    and nothing queued; the same host in capitals, or with a path, is this server."""
    prof = instructor_token(plain.course)
    cookie = cookie_of(signed_in(plain, prof))
    host = plain.url.removeprefix("http://")
    port = int(host.rsplit(":", 1)[1])

    def regrade(headers: dict[str, str]) -> int:
        return call(plain, "POST", "/api/regrade", cookie=cookie, body=b"", headers=headers).status

    queued = call(plain, "GET", "/healthz").json()["queue"]
    for headers in ({"Origin": f"http://127.0.0.1:{port + 1}"}, {"Origin": "http://127.0.0.1"},
                    {"Origin": f"http://{host}.evil.example"}, {"Origin": f"http://{host}@evil.example"},
                    {"Referer": f"http://{host}@evil.example/page"}, {"Referer": f"http://evil.example/{host}"},
                    {"Origin": "null", "Referer": plain.url + "/instructor"},
                    {"Origin": f"http://localhost:{port}"}):
        assert regrade(headers) == 403, headers
    # a bearer header makes the middleware not ask (a browser sends none cross-site without CORS, which this
    # server never grants), and then the bearer is the credential: none that works, the cookie is not read
    assert regrade({"Origin": EVIL, "Authorization": "Bearer not-a-token"}) == 401
    assert regrade({"Origin": EVIL, "Authorization": "Bearer "}) == 403  # "Bearer" (HTTP trims it): no bearer at all
    assert call(plain, "OPTIONS", "/api/regrade", cookie=cookie, headers={"Origin": EVIL}).status == 405
    assert call(plain, "GET", "/healthz").json()["queue"] == queued  # none of them queued anything
    assert regrade({"Origin": plain.url.upper()}) == 200 and regrade({"Referer": plain.url + "/x?y"}) == 200


def test_a_students_token_reaches_no_instructor_endpoint_nor_a_classmates_submission(plain: Server) -> None:
    tokens = reissue(plain.course)
    body = b"# exercise: node-mul\nclass Node:\n    pass\n"
    theirs = call(plain, "POST", "/api/submissions?exercise=node-mul", token=tokens["s2"], body=body,
                  headers={"X-Filename": "work.py"}).json()["submission"]
    assert isinstance(theirs, int)
    missing = theirs + 1000
    for prefix in ("/api/submissions/", "/me/submissions/"):  # another's is "not found", as one that does not exist
        found, absent = (call(plain, "GET", f"{prefix}{n}", token=tokens["s1"]) for n in (theirs, missing))
        assert found.status == absent.status == 404
        assert found.body.replace(b"submission %d" % theirs, b"N") == absent.body.replace(b"submission %d" % missing,
                                                                                         b"N")
    history = call(plain, "GET", "/api/history?student=s2", token=tokens["s1"]).json()
    assert history["student"] == "s1" and history["submissions"] == []  # ?student= is the instructor's only
    assert call(plain, "POST", "/api/regrade", token=tokens["s1"], body=b"").status == 403
    session = cookie_of(signed_in(plain, tokens["s1"]))
    assert call(plain, "POST", "/api/regrade", cookie=session, body=b"", headers={"Origin": plain.url}).status == 403
    for path in ("/instructor", "/instructor?assignment=hw1", "/instructor/students/s2",
                 f"/instructor/submissions/{theirs}", "/instructor/gradebook/hw1.csv"):
        for credential in ({"token": tokens["s1"]}, {"cookie": session}):
            answer = call(plain, "GET", path, **credential)
            assert answer.status == 403 and b"s2" not in answer.body, (path, credential)
    assert call(plain, "GET", "/api/history", token=tokens["s2"]).json()["submissions"][0]["state"] == "queued"


def test_an_uploads_name_and_type_steer_nothing(plain: Server) -> None:
    """The name a client sends is the student's word for their pages only: no path, no control characters, no
    header; the Content-Type is not read (the bytes are checked); the file is graded as submission.py."""
    token = reissue(plain.course)["s1"]
    body = b"# exercise: node-mul\nclass Node:\n    pass\n"
    for sent, shown in (("..%2F..%2F..%2Fetc%2Fpasswd.py", "passwd.py"), ("..\\..\\boot.ini.py", "boot.ini.py"),
                        ("a%0D%0ASet-Cookie%3A x%3D1.py", "a__Set-Cookie_ x_1.py"), ("%00.py", "_.py"),
                        ("x" * 5000 + ".py", "x" * 80)):
        answer = call(plain, "POST", "/api/submissions?exercise=node-mul", token=token, body=body,
                      headers={"X-Filename": sent, "Content-Type": "image/png"})
        assert answer.status == 201 and "set-cookie" not in answer.headers, (sent, answer.body)
        listed = call(plain, "GET", f"/api/submissions/{answer.json()['submission']}", token=token).json()
        assert listed["filename"] == shown, (sent, listed["filename"])


def test_a_connection_that_sends_nothing_or_a_byte_at_a_time_is_closed(plain: Server) -> None:
    """Slowloris: uvicorn kept a connection that sent nothing, or a header or a body a byte every second, for
    ever (one client could hold every file descriptor of the server). Now each request must arrive whole within
    grader.service.deadlines.REQUEST_SECONDS; a request that did may take its time to be answered (a report
    waited for), and the server answers the others meanwhile. Headers are bounded too (h11: 1 MiB is refused)."""
    from grader.service.deadlines import REQUEST_SECONDS

    tokens = reissue(plain.course)
    body = b"# exercise: node-mul\nclass Node:\n    pass\n"
    queued = call(plain, "POST", "/api/submissions?exercise=node-mul", token=tokens["s2"], body=body).json()
    host, port = plain.url.removeprefix("http://").rsplit(":", 1)
    upload = (f"POST /api/submissions?exercise=node-mul HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer "
              f"{tokens['s1']}\r\nContent-Length: 60000\r\n\r\n").encode()
    slow = {"nothing": (b"", b""), "a header at a time": (b"GET /healthz HTTP/1.1\r\n", b"X-A: b\r\n"),
            "an upload's body": (upload, b"#")}
    ended: dict[str, float] = {}
    waited: dict[str, object] = {}

    def hold(name: str, first: bytes, each: bytes) -> None:
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(first)
            sock.settimeout(1.0)
            started = time.monotonic()
            while time.monotonic() - started < REQUEST_SECONDS * 3:
                try:
                    if each:
                        sock.sendall(each)
                    if sock.recv(1 << 16) == b"":
                        break
                except TimeoutError:
                    continue
                except OSError:
                    break
            ended[name] = time.monotonic() - started

    def wait_for_report() -> None:  # a whole request, answered after longer than the deadline
        waited.update(call(plain, "GET", f"/api/submissions/{queued['submission']}?wait={REQUEST_SECONDS + 5}",
                           token=tokens["s2"]).json())

    before = len(call(plain, "GET", "/api/history", token=tokens["s1"]).json()["submissions"])
    threads = [threading.Thread(target=hold, args=(name, *sent)) for name, sent in slow.items()]
    threads.append(threading.Thread(target=wait_for_report))
    for thread in threads:
        thread.start()
    assert call(plain, "GET", "/api/status", token=tokens["s1"]).status == 200  # served meanwhile
    with socket.create_connection((host, int(port)), timeout=30) as sock:  # refused, maybe before it is all sent
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Huge: " + b"a" * (1 << 20) + b"\r\n\r\n")
            answer = sock.recv(1 << 16)
        except ConnectionResetError:
            answer = b"reset"
    assert answer.startswith((b"HTTP/1.1 400 ", b"reset")), answer[:200]
    for thread in threads:
        thread.join(timeout=REQUEST_SECONDS * 4)
    assert set(ended) == set(slow) and all(t < REQUEST_SECONDS * 2 for t in ended.values()), ended
    assert waited.get("state") == "queued"  # the long poll ran its course (no worker here)
    assert len(call(plain, "GET", "/api/history", token=tokens["s1"]).json()["submissions"]) == before  # not stored
