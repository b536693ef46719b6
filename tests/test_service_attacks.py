"""Attacks on the course server by a student who has read its code, and by anyone on the internet: a real `grade
serve` on a loopback port (on SQLite and on PostgreSQL where the store decides), requests made as a browser, a
script or an attacker's page would make them; each attack fails, and changes nothing."""

from __future__ import annotations

import base64
import http.server
import json
import re
import socket
import sqlite3
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from ags_platform import Platform, running
from browser import browsing, person
from cryptography.hazmat.primitives.asymmetric import rsa
from lti_launch import (
    USERS,
    authorize,
    launch,
    login,
    lti_course,
    opener,
    public_pem,
    request,
    sign_in,
    tool_key,
)
from lti_launch import serving as lti_serving
from service_helpers import Server, course_folder, instructor_token, postgres, serving
from test_service_credentials import EVIL, Answer, call, cookie_of, reissue

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A course on SQLite, for the attacks the store does not decide, behind a TLS proxy on loopback (whose
    X-Forwarded-Proto it believes)."""
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    with serving(course_folder(tmp_path_factory.mktemp("attack-plain"), deadline=deadline, students=["s1", "s2"],
                               per_day=50),
                 workers=0, args=("--forwarded-allow-ips", "127.0.0.1")) as server:
        yield server


def login_path(server: Server, token: str) -> str:
    """A one-time login link's path, made with the token (as `grade submit --login` does)."""
    made = call(server, "POST", "/api/login-link", token=token, body=b"")
    assert made.status == 200, made.body
    return urllib.parse.urlsplit(str(made.json()["url"])).path


def test_another_sites_page_cannot_spend_a_login_link_in_a_browser(tmp_path: Path) -> None:
    """The same attack in headless Chromium: a page of another origin that posts the link's form at once (the
    attacker's, with a script) is refused by what the browser itself says in Origin; the link's own page, opened
    by its student, names whom it signs in, sets no cookie, and its button signs in."""
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = course_folder(tmp_path / "course", deadline=deadline, students=["s1", "s2"])
    with serving(course, workers=0) as server, browsing() as browser:
        path = login_path(server, reissue(course)["s1"])
        html = (f'<form method="post" action="{server.url}{path}"></form>'
                "<script>document.forms[0].submit()</script>").encode()
        classmate = person(browser).new_page()
        with _site(html) as attacker, classmate.expect_response(server.url + path) as answer:
            classmate.goto(attacker)
        assert answer.value.status == 403 and "another site" in answer.value.text()
        assert classmate.context.cookies(server.url) == []
        assert call(server, "GET", path).status == 200  # not spent
        s1 = person(browser).new_page()  # the link's own student: opens it, reads whom it signs in, clicks
        s1.goto(server.url + path)
        assert s1.inner_text("h1") == "Sign in as Student s1 (s1)?" and "do not sign in" in s1.inner_text("body")
        assert s1.context.cookies(server.url) == [] and call(server, "GET", path).status == 200  # nothing spent
        s1.click("form button")  # the browser's own POST, with its own Origin: accepted
        assert s1.url.endswith("/me") and "Your submissions" in s1.inner_text("body"), s1.content()[-2000:]
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
    # behind the TLS proxy
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
    # a bearer header is the credential (a browser sends none cross-site without CORS, which this server never
    # grants): one that names no one, an empty one too ("Bearer ", which HTTP trims), leaves the request anonymous,
    # and the cookie beside it is not read
    assert regrade({"Origin": EVIL, "Authorization": "Bearer not-a-token"}) == 401
    assert regrade({"Origin": EVIL, "Authorization": "Bearer "}) == 401
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
    grader.service.slow_clients.REQUEST_SECONDS; a request that did may take its time to be answered (a report
    waited for), and the server answers the others meanwhile. Headers are bounded too (h11: 1 MiB is refused)."""
    from grader.service.slow_clients import REQUEST_SECONDS

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

    def wait_closing() -> None:  # the same as grade submit's client asks it: urllib says "Connection: close"
        request = urllib.request.Request(f"{plain.url}/api/submissions/{queued['submission']}?wait="
                                         f"{REQUEST_SECONDS + 5}", headers={"Authorization": f"Bearer {tokens['s2']}"})
        with urllib.request.urlopen(request, timeout=REQUEST_SECONDS * 3) as response:
            waited["closing"] = json.loads(response.read())["state"]

    before = len(call(plain, "GET", "/api/history", token=tokens["s1"]).json()["submissions"])
    threads = [threading.Thread(target=hold, args=(name, *sent)) for name, sent in slow.items()]
    threads += [threading.Thread(target=wait_for_report), threading.Thread(target=wait_closing)]
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
    assert waited.get("closing") == "queued"  # one whose connection is to close after it too (it was cut at 30 s)
    assert len(call(plain, "GET", "/api/history", token=tokens["s1"]).json()["submissions"]) == before  # not stored


# ---- LTI: an outsider (anyone may begin a login), and a student who launches as themselves ----

LTI_DEADLINE = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def lms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Platform, Path]]:
    key = tool_key(tmp_path_factory.mktemp("keys"))
    platform = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key),
                        users={k: dict(v) for k, v in USERS.items()})
    with running(platform) as started:
        yield started, key


@pytest.fixture(scope="module")
def lti_tool(lms: tuple[Platform, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    platform, key = lms
    course = lti_course(tmp_path_factory.mktemp("lti-course"), platform, key, deadline=LTI_DEADLINE)
    with lti_serving(course, platform) as url:
        yield url, course


def test_a_state_cookie_a_sibling_site_planted_opens_nothing(lms: tuple[Platform, Path],
                                                             lti_tool: tuple[str, Path]) -> None:
    """LTI's login CSRF by cookie tossing: s2 begins a login of their own, has the LMS sign their id_token, plants
    the state's cookie in s1's browser from a sibling site (a plain cookie: a __Host- one cannot be set from
    there) and has s1's browser post the launch. The server reads only the __Host- cookie: nothing opens."""
    platform, _ = lms
    tool, _ = lti_tool
    pending = login(tool, platform, "lti-s2")
    _, fields = authorize(pending)
    ((name, value),) = pending.cookie.items()
    assert name.startswith("__Host-grader_lti_")
    planted = {name.removeprefix("__Host-"): value}
    answer = launch(tool, fields, planted)
    assert answer.status == 403 and "/lti/open/" not in answer.body
    # the sign-in was not spent by that: in s2's own browser it opens s2's page
    opened = launch(tool, fields, pending.cookie)
    assert opened.status == 200
    # and the opening link too reads only the __Host- cookie
    assert request(tool + opener(opened), cookies=planted).status == 403


def test_an_id_tokens_header_makes_the_server_fetch_nothing_and_a_deep_one_is_refused(
        lms: tuple[Platform, Path], lti_tool: tuple[str, Path]) -> None:
    """SSRF: a header naming where to find its key (jku, x5u) or holding one (jwk, x5c) is never followed nor
    trusted, only the platform's key set at lms.toml's jwks_url; a flood of unknown kids fetches that key set again
    at most once per PyJWT's 30 s cooldown; a header nested 20,000 deep is "not a JWT", never a 500."""
    platform, _ = lms
    tool, _ = lti_tool
    asked: list[str] = []

    class Trap(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *_: object) -> None:
            return

    trap = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trap)
    threading.Thread(target=trap.serve_forever, daemon=True).start()
    where = f"http://127.0.0.1:{trap.server_address[1]}"
    mine = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    own = jwt.algorithms.RSAAlgorithm.to_jwk(mine.public_key(), as_dict=True)
    fetched = platform.jwks_fetches
    try:
        for index in range(12):
            pending = login(tool, platform, "lti-s1")
            claims = jwt.decode(platform.id_token("lti-s1", "rl-hw1", pending.nonce, f"{tool}/lti/launch"),
                                options={"verify_signature": False})
            token = jwt.encode(claims, mine, algorithm="RS256", headers={
                "kid": f"attacker-{index}", "jku": f"{where}/jku", "x5u": f"{where}/x5u", "jwk": own})
            answer = launch(tool, {"id_token": token, "state": pending.state}, pending.cookie)
            assert answer.status == 403 and "a key the LMS does not publish" in answer.body, answer.body
        assert asked == []
        assert platform.jwks_fetches - fetched <= 2
        pending = login(tool, platform, "lti-s1")
        head = b'{"alg":"RS256","kid":"k","x":' + b"[" * 20_000 + b"]" * 20_000 + b"}"
        deep = base64.urlsafe_b64encode(head).rstrip(b"=").decode() + ".e30.c2ln"
        answer = launch(tool, {"id_token": deep, "state": pending.state}, pending.cookie)
        assert answer.status == 403 and "not a JWT" in answer.body
    finally:
        trap.shutdown()
        trap.server_close()


def test_a_launchs_opening_link_opens_one_session_however_many_race_for_it(lms: tuple[Platform, Path],
                                                                          lti_tool: tuple[str, Path]) -> None:
    platform, _ = lms
    tool, _ = lti_tool
    pending = login(tool, platform, "lti-s1")
    answer = launch(tool, authorize(pending)[1], pending.cookie)
    link = tool + opener(answer)
    statuses: list[int] = []
    gate = threading.Barrier(8)

    def race() -> None:
        gate.wait()
        statuses.append(request(link, cookies=pending.cookie).status)

    threads = [threading.Thread(target=race) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses) == [303] + [403] * 7


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_flood_of_login_initiations_locks_no_student_out(lms: tuple[Platform, Path], tmp_path: Path,
                                                           store: str) -> None:
    """Anyone may begin an LTI login, and each keeps a state for 5 minutes. One client filled the table
    (MAX_PENDING, 10,000: 144 s from one machine here) and every student's launch was then refused (503) until
    the states expired, renewed at ~35 requests a second. Now the oldest logins under way give way: the flood,
    already in the store, holds nobody's launch."""
    from grader.service.lti.lti import MAX_PENDING

    platform, key = lms
    with postgres() if store == "postgresql" else nullcontext() as pg:
        course = lti_course(tmp_path / "course", platform, key, deadline=LTI_DEADLINE,
                            database=pg.url if pg is not None else "")
        later = time.time() + 250
        if pg is not None:
            pg.psql("INSERT INTO lti_states (digest, nonce, login, expires_at) SELECT 'flood-' || i, 'n' || i, "
                    f"'{{}}', {later} + i * 0.001 FROM generate_series(1, {MAX_PENDING}) AS i")
        else:
            with sqlite3.connect(course / "server" / "course.db") as db:
                db.executemany("INSERT INTO lti_states (digest, nonce, login, expires_at) VALUES (?, ?, '{}', ?)",
                               [(f"flood-{i}", f"n{i}", later + i * 0.001) for i in range(1, MAX_PENDING + 1)])
        with lti_serving(course, platform) as tool:
            session, destination = sign_in(tool, platform, "lti-s1")
            assert destination == "/me/assignments/hw1"
            assert request(tool + destination, cookies={"grader_session": session}).status == 200
            if pg is not None:
                left = int(pg.psql("SELECT count(*) FROM lti_states"))
                oldest = pg.psql("SELECT count(*) FROM lti_states WHERE digest = 'flood-1'")
            else:
                with sqlite3.connect(course / "server" / "course.db") as db:
                    left = db.execute("SELECT count(*) FROM lti_states").fetchone()[0]
                    oldest = str(db.execute("SELECT count(*) FROM lti_states WHERE digest = 'flood-1'").fetchone()[0])
            assert left <= MAX_PENDING and oldest == "0"  # bounded still; the oldest flood state gave way
