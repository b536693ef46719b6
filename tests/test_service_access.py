"""The course server's one access layer (grader.service.access), on a real `grade serve` on a loopback port with an
LMS registration (the test platform): every route of the app, read from the app itself so that a route added
later is called too, answers an anonymous caller, a student, another student and the instructor (each with their
token and with their page's session) as its declaration says; every answer says who may frame it; limits count the
identity, not the spelling of its credential, on the API and the pages alike; and a long poll ends with its
credential."""

from __future__ import annotations

import http.client
import http.server
import re
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ags_platform import Platform, running
from browser import browsing, person
from lti_launch import USERS, lti_course, public_pem, tool_key
from service_helpers import SAMPLES, Server, grade, instructor_token
from test_service_credentials import link_of, session_of

from grader.service import access
from grader.service.access.limits import IN_FLIGHT, REQUESTS_PER_MINUTE

pytestmark = pytest.mark.slow
DEADLINE = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
#: the name of s1's upload: no answer to anyone but s1 and the instructor may hold it
MARK = "s1-private-work.py"


@dataclass
class Caller:
    name: str
    #: the Authorization or Cookie header it sends, if any
    headers: dict[str, str]
    #: whom it is: anonymous, s1, s2 or prof
    who: str
    session: bool = False


@dataclass
class Course:
    server: Server
    platform: Platform
    tokens: dict[str, str]
    #: s1's submission
    submission: int
    callers: list[Caller]


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Course]:
    folder = tmp_path_factory.mktemp("access")
    key_file = tool_key(folder)
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()}, browser_host="lms.test")  # a site of its own
    with running(lms) as platform:
        home = lti_course(folder / "course", platform, key_file, deadline=DEADLINE)
        tokens = _tokens(home)
        tokens["prof"] = instructor_token(home)
        server = Server(home, workers=0).start()
        platform.login_url = f"{server.url}/lti/login"
        platform.redirect_uris.add(f"{server.url}/lti/launch")
        try:
            sent = _request(server, "POST", "/api/submissions?assignment=hw1", {
                "Authorization": f"Bearer {tokens['s1']}", "X-Filename": MARK},
                (SAMPLES / "node-mul" / "correct_lesson_style.py").read_bytes())
            assert sent[0] == 201, sent
            ident = int(re.search(rb'"submission":\s*(\d+)', sent[2]).group(1))  # type: ignore[union-attr]
            callers = [Caller("anonymous", {}, "anonymous")]
            for who in ("s1", "s2", "prof"):
                callers.append(Caller(f"{who}'s token", {"Authorization": f"Bearer {tokens[who]}"}, who))
                cookie = f"grader_session={session_of(server, tokens[who])}"
                callers.append(Caller(f"{who}'s session", {"Cookie": cookie, "Origin": server.url}, who, True))
            yield Course(server, platform, tokens, ident, callers)
        finally:
            server.stop()


def _tokens(course: Path) -> dict[str, str]:
    done = grade("tokens", "--course", str(course), "--again")
    assert done.returncode == 0, done.stderr
    return {line.split(",")[0]: line.split(",")[-1].strip() for line in done.stdout.strip().splitlines()[1:]}


def _request(server: Server, method: str, path: str, headers: dict[str, str], body: bytes | None = None,
             ) -> tuple[int, dict[str, list[str]], bytes]:
    """One request, no redirect followed: its status, headers (every value of each) and body."""
    where = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        found: dict[str, list[str]] = {}
        for name, value in response.getheaders():
            found.setdefault(name.lower(), []).append(value)
        return response.status, found, response.read()
    finally:
        connection.close()


def route_table(course: Path) -> list[tuple[str, str, access.Access | None]]:
    """Every (method, path, declaration) of the app `grade serve` runs for `course`, read from the app itself (built
    here over a store of its own, so that the running server's is not touched)."""
    from grader.service.app import make_app
    from grader.service.config import load_course
    from grader.service.db.store import open_store

    store = course.parent / "route-table.db"
    loaded = load_course(course, database=f"sqlite:///{store}")
    app = make_app(loaded, open_store(loaded.database), b"secret")
    table = []
    for route in app.routes:
        for method in sorted(getattr(route, "methods", None) or ["GET"]):
            if method != "HEAD":
                table.append((method, getattr(route, "path", repr(route)), access.declared(getattr(route, "endpoint",
                                                                                                     None))))
    return table


def _path(template: str, course: Course) -> str:
    """A route's path with its parameters filled: s1's submission, s1, hw1; anything else a name nobody has."""
    values = {"id": str(course.submission), "student": "s1", "assignment": "hw1"}
    path = re.sub(r"\{(\w+)(:\w+)?\}", lambda m: values.get(m.group(1), "nobody-has-this"), template)
    return path + ("&" if "?" in path else "?") + "student=s1&assignment=hw1"


def test_every_route_answers_each_caller_as_it_declares(course: Course) -> None:
    table = route_table(course.server.course)
    assert len(table) >= 25 and all(declared is not None for _, _, declared in table), table
    lms_origins = f"{course.platform.issuer} {course.platform.browser_base}"  # the registration's, by default
    wrong: list[str] = []
    for method, template, declared in table:
        assert declared is not None
        path = _path(template, course)
        answers = {}
        for caller in course.callers:
            body = b"" if method == "POST" else None
            sent = {**caller.headers, "Content-Type": "application/x-www-form-urlencoded"} if body is not None \
                else caller.headers
            status, headers, text = _request(course.server, method, path, sent, body)
            answers[caller.name] = status
            what = f"{method} {template} as {caller.name}: {status}"
            wrong += [f"{what}: {p}" for p in _against(declared, caller, status, text, template)]
            wrong += [f"{what}: {p}" for p in _frames(declared, headers, lms_origins)]
        if declared.caller in (access.Caller.ANYONE, access.Caller.LMS) and len(set(answers.values())) != 1:
            wrong.append(f"{method} {template} asks no credential, yet answers differ by caller: {answers}")
    assert not wrong, "\n".join(wrong)


def _against(declared: access.Access, caller: Caller, status: int, body: bytes, template: str) -> list[str]:
    """What is wrong with `status` and `body` as the answer of a route declared `declared` to `caller`."""
    refused = status in (401, 403)
    kind = declared.caller
    if kind in (access.Caller.ANYONE, access.Caller.LMS):
        return ["an open route refused an anonymous caller"] if caller.who == "anonymous" and status == 401 else []
    if caller.who == "anonymous":
        return [] if status == 401 else ["a signed-in route answered an anonymous caller"]
    if kind is access.Caller.INSTRUCTOR and caller.who != "prof":
        return [] if status == 403 else ["an instructor's route answered a student"]
    if declared.token_only and caller.session:
        return [] if status == 403 else ["a route that asks for the token answered a session"]
    problems = ["the declared caller was refused"] if refused else []
    if caller.who == "s2":
        if MARK.encode() in body:
            problems.append("another student's data reached s2")
        if "{id}" in template and status != 404:
            problems.append("another student's submission was not 'not found'")
    return problems


def _frames(declared: access.Access, headers: dict[str, list[str]], lms_origins: str) -> list[str]:
    policies = [p for p in headers.get("content-security-policy", []) if "frame-ancestors" in p]
    if declared.caller is access.Caller.LMS:
        if policies != [f"frame-ancestors {lms_origins}"] or "x-frame-options" in headers:
            return [f"an LMS route's frames: {policies}, X-Frame-Options {headers.get('x-frame-options')}"]
        return []
    if policies != ["frame-ancestors 'none'"] or headers.get("x-frame-options") != ["DENY"]:
        return [f"frames: {policies}, X-Frame-Options {headers.get('x-frame-options')}"]
    return []


def test_an_app_with_a_route_that_declares_nothing_does_not_start() -> None:
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def forgotten(_: object) -> PlainTextResponse:
        return PlainTextResponse("everyone's marks")

    with pytest.raises(RuntimeError, match="/forgotten"):
        access.check([Route("/forgotten", forgotten)])


def test_a_token_spelled_otherwise_is_the_same_student_in_flight(course: Course) -> None:
    """Twelve long polls at once with one token, its header spelled twelve ways (the scheme's case, spaces the
    server strips): IN_FLIGHT of them are held, the rest answered 429 at once. The limit keyed on the header's
    text let all twelve through."""
    spellings = [f"{scheme}{' ' * spaces}{course.tokens['s2']}{' ' * trail}"
                 for scheme in ("Bearer", "bearer", "BEARER") for spaces, trail in ((1, 0), (2, 0), (1, 1), (3, 2))]
    answers: list[int] = []
    lock = threading.Lock()

    def poll(header: str) -> None:
        # s2's own new upload: a long poll on a submission nobody grades (the server has no worker)
        status, _, _ = _request(course.server, "GET", f"/api/submissions/{own}?wait=4", {"Authorization": header})
        with lock:
            answers.append(status)

    sent = _request(course.server, "POST", "/api/submissions?assignment=hw1", {
        "Authorization": f"Bearer {course.tokens['s2']}", "X-Filename": "mine.py"},
        (SAMPLES / "node-mul" / "correct_lesson_style.py").read_bytes())
    own = int(re.search(rb'"submission":\s*(\d+)', sent[2]).group(1))  # type: ignore[union-attr]
    threads = [threading.Thread(target=poll, args=(header,)) for header in spellings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == 12 and answers.count(200) <= IN_FLIGHT and answers.count(429) >= 12 - IN_FLIGHT, answers


def test_the_pages_are_rate_limited_per_student(course: Course) -> None:
    """A student's page asked for in a loop, with the session cookie sent twice under its name (Starlette reads the
    last): past REQUESTS_PER_MINUTE a minute the pages answer 429 with Retry-After, and another student's page is
    served all the while. No page had a limit."""
    cookie = next(c for c in course.callers if c.who == "s1" and c.session).headers["Cookie"]
    doubled = {"Cookie": f"grader_session=made-up; {cookie}"}
    statuses = [_request(course.server, "GET", "/me", doubled)[0] for _ in range(REQUESTS_PER_MINUTE + 20)]
    assert statuses.count(429) >= 20 and set(statuses) <= {200, 429}, statuses
    refused = _request(course.server, "GET", "/me", doubled)
    assert refused[0] == 429 and refused[1].get("retry-after"), refused[:2]
    other = next(c for c in course.callers if c.who == "s2" and c.session).headers
    assert _request(course.server, "GET", "/me", other)[0] == 200


def test_a_long_poll_ends_when_its_token_is_revoked(course: Course) -> None:
    """A report waited on (`?wait=60`) while the token that asked is revoked: the wait ends with 401 within a few
    seconds, and nothing of the submission is delivered. It went on to deliver the report, up to 60 s later."""
    token = course.tokens["s3"]  # s3 is asked nothing else here: its token is this test's to revoke
    sent = _request(course.server, "POST", "/api/submissions?assignment=hw1", {
        "Authorization": f"Bearer {token}", "X-Filename": "mine.py"},
        (SAMPLES / "node-mul" / "correct_lesson_style.py").read_bytes())
    own = int(re.search(rb'"submission":\s*(\d+)', sent[2]).group(1))  # type: ignore[union-attr]
    answer: list[tuple[int, bytes, float]] = []

    def wait() -> None:
        began = time.monotonic()
        status, _, body = _request(course.server, "GET", f"/api/submissions/{own}?wait=60",
                                   {"Authorization": f"Bearer {token}"})
        answer.append((status, body, time.monotonic() - began))

    waiting = threading.Thread(target=wait)
    waiting.start()
    time.sleep(1.5)
    done = grade("tokens", "--course", str(course.server.course), "--revoke", "s3")
    assert done.returncode == 0, done.stderr
    revoked = time.monotonic()
    waiting.join(90)
    assert answer, "the long poll never ended"
    status, body, _ = answer[0]
    assert status == 401 and b"sha256" not in body, (status, body[:200])
    assert time.monotonic() - revoked < 30  # it ended with the token, not at its 60 s


def test_no_other_site_frames_a_page_and_the_lms_frames_its_launch(course: Course) -> None:
    """Headless Chromium, the instructor signed in: a page of a sibling site (127.0.0.1 on another port: the same
    site, so the Strict session cookie goes with the frame) frames the deadlines page under a decoy, and the
    student's page; the browser shows neither, and a click on the decoy changes nothing. The LMS's own course page
    (lms.test) frames a launch, which the browser shows. The pages sent no frame-ancestors header (a `<meta>`
    CSP cannot hold one), so the frame showed the deadlines page and the click withdrew an extension."""
    server = course.server
    with browsing("--host-resolver-rules=MAP lms.test 127.0.0.1") as chrome:
        prof = person(chrome).new_page()
        prof.goto(server.url + link_of(server, course.tokens["prof"]))
        prof.click("form button")
        prof.wait_for_url(f"{server.url}/instructor*")
        before = _audit(server)
        decoy = ('<button id="decoy" style="position:absolute;top:40px;left:40px">Claim your prize</button>'
                 f'<iframe name="deadlines" src="{server.url}/instructor/deadlines" style="opacity:0.05;'
                 'position:absolute;top:0;left:0;width:1000px;height:800px"></iframe>'
                 f'<iframe name="me" src="{server.url}/me"></iframe>')
        with _sibling(decoy.encode()) as evil:
            prof.goto(evil, wait_until="load")
            for name in ("deadlines", "me"):
                frame = prof.frame(name=name)
                assert frame is not None
                shown = _text(frame)
                assert "Deadlines and extensions" not in shown and "The class" not in shown, shown[:300]
            prof.mouse.click(60, 50)  # where the deadlines page's first button would be, under the decoy
            prof.wait_for_timeout(500)
        assert _audit(server) == before
        student = person(chrome).new_page()
        student.goto(f"{course.platform.browser_base}/course?user=lti-s1&link=rl-hw1", wait_until="load")
        tool = student.frame(name="tool")
        assert tool is not None
        tool.wait_for_selector("text=window of its own", timeout=30_000)  # the framed launch's own answer


def _text(frame: object) -> str:
    try:
        return str(frame.evaluate("document.documentElement.innerText"))  # type: ignore[attr-defined]
    except Exception:  # a frame the browser blocked holds an error page it may not read
        return ""


def _audit(server: Server) -> list[tuple[object, ...]]:
    with sqlite3.connect(server.course / "server" / "course.db") as db:
        return db.execute("SELECT * FROM audit_log").fetchall() + db.execute("SELECT * FROM rule_overrides").fetchall()


@contextmanager
def _sibling(html: bytes) -> Iterator[str]:
    """A page of a sibling site: 127.0.0.1 as the server, on another port (the same site, another origin)."""

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
        yield f"http://127.0.0.1:{site.server_address[1]}/prize.html"
    finally:
        site.shutdown()
        site.server_close()
