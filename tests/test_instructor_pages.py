"""The instructor's pages and the student's upload form, driven in headless Chromium against a real `grade serve`:
the class table (sorted, filtered, every cell a link, the CSV with formula cells neutralised), deadlines and
extensions set from the page (in the store, in the audit log, at once for another server on the same store,
SQLite and PostgreSQL), the regrade, the upload form's checks, and cross-site form posts refused. Every page is
screenshot at desktop and phone width ($AUTOGRADER_SHOTS keeps them)."""

from __future__ import annotations

import contextlib
import http.server
import json
import sqlite3
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from browser import browsing, person, shots, shots_folder
from service_helpers import SAMPLES, Server, course_folder, grade, instructor_token, issue_tokens, postgres, wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"
#: names are hostile: a formula, markup, a leading plus
ROSTER = ('id,name,email,section\ns1,"=HYPERLINK(""http://evil.example"",""x"")",s1@example.edu,A\n'
          "s2,<script>alert(1)</script> Bob,s2@example.edu,B\ns3,Cat Three,s3@example.edu,A\n"
          "s4,+1 Dee,s4@example.edu,B\n")


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _course(folder: Path, database: str = "", uploads_per_minute: int = 30,
            deadline: timedelta = timedelta(hours=2)) -> tuple[Path, dict[str, str], str]:
    course = course_folder(folder, deadline=_at(datetime.now(UTC) + deadline), students=[],
                           uploads_per_minute=uploads_per_minute)
    if database:
        (course / "course.toml").write_text(f'database = "{database}"\n' + (course / "course.toml").read_text())
    (course / "roster.csv").write_text(ROSTER)
    return course, issue_tokens(course), instructor_token(course)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str], str]]:
    course, tokens, prof = _course(tmp_path_factory.mktemp("course"))
    server = Server(course).start()
    try:
        yield server, tokens, prof
    finally:
        server.stop()


def _call(server: Server, path: str, token: str | None = None, method: str = "GET", body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, str]:
    sent = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
    request = urllib.request.Request(server.url + path, data=body, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read().decode()


def _graded(server: Server, token: str, count: int) -> None:
    def done() -> bool:
        found = json.loads(_call(server, "/api/history", token)[1])["submissions"]
        return len(found) >= count and all(s["state"] == "done" for s in found)
    wait_until(done, 240, "the submissions to be graded")


def _login(server: Server, token: str) -> str:
    done = server.submit(token, "--login")
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[-1]


def _signed_in(page: Page, link: str) -> None:
    """Open a login link in the browser and sign in on its page, as its student does."""
    page.goto(link)
    page.click("form button")


def _session(server: Server, token: str) -> str:
    """A page session's cookie value, from a login link (its page's form, posted)."""
    link = _login(server, token)
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(urllib.request.Request(link, data=b"", headers={"Origin": server.url}), timeout=60)
    except urllib.error.HTTPError as exc:
        exc.close()
        cookie = exc.headers["set-cookie"]
        return str(cookie.split(";")[0].split("=", 1)[1])
    raise AssertionError("the login link set no session")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _form(fields: dict[str, str], file: tuple[str, bytes] | None = None) -> tuple[bytes, str]:
    """A multipart body, as a browser sends a form with a file input."""
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    if file is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file[0]}"\r\n'
                     "Content-Type: text/x-python\r\n\r\n".encode() + file[1] + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_the_class_table_deadlines_and_regrade_in_chromium(served: tuple[Server, dict[str, str], str]) -> None:
    server, tokens, prof = served
    folder = shots_folder("instructor-pages-")
    assert server.submit(tokens["s1"], str(NODE_MUL / "correct_lesson_style.py")).returncode == 0
    assert server.submit(tokens["s4"], str(NODE_MUL / "swapped_slopes.py")).returncode in (0, 1)
    with browsing() as browser:
        # s2 submits from their page: the file input, then the receipt
        student = person(browser).new_page()
        _signed_in(student, _login(server, tokens["s2"]))
        assert student.url.endswith("/me") and "Autograd test course" in student.inner_text("body")
        # named as the roster names them (their markup shown as text), not by their id
        assert student.inner_text("h1") == "Autograd test course: <script>alert(1)</script> Bob"
        shots(student, folder, "student")
        student.set_input_files("input[type=file]", str(NODE_MUL / "correct_lesson_style.py"))
        student.click("form.upload button")
        assert "Received: submission" in student.inner_text("h1") and "sha256" in student.inner_text("body")
        shots(student, folder, "receipt")
        _graded(server, tokens["s2"], 1)
        _graded(server, tokens["s4"], 1)

        prof_page = person(browser, accept_downloads=True).new_page()
        _signed_in(prof_page, _login(server, prof))
        assert prof_page.url.endswith("/instructor"), prof_page.url
        text = prof_page.inner_text("body")
        assert "Autograd test course" in text and "Students (4 of 4)" in text and "Queue" in text
        assert "<script>alert(1)</script> Bob" in text and prof_page.locator("script").count() == 0
        assert _row_texts(prof_page)[0][0].startswith("+1 Dee")  # sorted by name
        shots(prof_page, folder, "class")
        # the table is wider than a phone: it scrolls in its own box, the page does not
        prof_page.set_viewport_size({"width": 390, "height": 844})
        assert prof_page.evaluate("(() => { const b = document.querySelector('table.class').parentElement; "
                                  "return b.scrollWidth > b.clientWidth; })()")
        prof_page.set_viewport_size({"width": 1280, "height": 900})

        prof_page.click("th a:text-is('hw1')")
        rising = [float(r[3].split("/")[0]) for r in _row_texts(prof_page)[:-1]]
        assert rising == sorted(rising) and rising[0] < 10 and _row_texts(prof_page)[0][1] == "s4", rising
        assert _row_texts(prof_page)[-1][1] == "s3"  # nothing counted: last, either way
        prof_page.click("th a:has-text('hw1')")
        scores = [r[3] for r in _row_texts(prof_page)]
        assert scores[0] == "10/10" and scores[-1] == "-", scores
        prof_page.fill("input[name=q]", "cat")
        prof_page.click("form.inline button:text-is('Filter')")
        assert [r[1] for r in _row_texts(prof_page)] == ["s3"]
        assert "Students (1 of 4)" in prof_page.inner_text("body")
        prof_page.goto(server.url + "/instructor")
        prof_page.select_option("select[name=missing]", "hw1")
        prof_page.click("form.inline button:text-is('Filter')")
        assert [r[1] for r in _row_texts(prof_page)] == ["s3"]

        # the CSV: the same rows, \n line endings, no cell a spreadsheet runs
        prof_page.goto(server.url + "/instructor")
        with prof_page.expect_download() as download:
            prof_page.click("a:text-is('class.csv')")
        data = Path(download.value.path()).read_bytes().decode()
        assert "\r" not in data and data.splitlines()[0].startswith("student,name,section,hw1,late_days_used")
        assert '\'=HYPERLINK(""http://evil.example"",""x"")' in data and ",'+1 Dee," in data
        assert "s1,\"'=HYPERLINK" in data and ",10,0,20" in data

        # a cell opens the submission it counts
        prof_page.click("td.num a:text-is('10/10') >> nth=0")
        assert "/instructor/submissions/" in prof_page.url and "Autograd test course" in prof_page.inner_text("nav")
        shots(prof_page, folder, "report")

        # an extension from the page: two days for s3, in the audit log, in s3's status at once
        prof_page.goto(server.url + "/instructor/deadlines")
        shots(prof_page, folder, "deadlines")
        grant = prof_page.locator("form:has(button:text-is('Grant'))")
        grant.locator("select[name=student]").select_option("s3")
        grant.locator("input[name=days]").fill("2")
        grant.locator("button").click()
        assert "extension of hw1 for s3: none ->" in prof_page.inner_text(".notice")
        log = prof_page.inner_text("table >> nth=-1")
        assert "prof" in log and "extension" in log and "s3" in log
        assert "set on this page by prof" in prof_page.inner_text("body")
        status = json.loads(_call(server, "/api/status", tokens["s3"])[1])
        hw1 = status["assignments"][0]
        assert hw1["extended"] and abs(hw1["deadline"] - _class_deadline(server) - 2 * 86400) < 1

        # the class's deadline moved to an hour ago: s4's next file is late at once; then course.toml's again
        row = prof_page.locator("tr:has(td:text-is('hw1'))").first
        past = datetime.now(UTC) - timedelta(hours=1)
        row.locator("input[name=when]").fill(past.strftime("%Y-%m-%dT%H:%M:%S"))
        row.locator("button:text-is('Set')").click()
        # a deadline in the past releases the hidden results: the page asks first, and says to whom
        assert "This releases hidden results" in prof_page.inner_text("h1")
        assert "hw1 to 3 students" in prof_page.inner_text("body")  # s3's extension keeps theirs back
        prof_page.click("button:text-is('Confirm: release them')")
        late = server.submit(tokens["s4"], str(NODE_MUL / "correct_lesson_style.py"), "--no-wait")
        assert late.returncode == 0 and "late" in late.stdout, late.stdout
        prof_page.locator("tr:has(td:text-is('hw1'))").first.locator("button:text-is('back to course.toml')").click()
        assert "(course.toml's again)" in prof_page.inner_text(".notice")
        assert json.loads(_call(server, "/api/status", tokens["s4"])[1])["assignments"][0]["deadline"] == \
            _class_deadline(server)
        shots(prof_page, folder, "deadlines-changed")

        # a regrade of one student's submissions
        prof_page.goto(server.url + "/instructor")
        prof_page.select_option("select[name=student]", "s1")
        prof_page.click("button:text-is('Regrade')")
        assert "Regrade of every assignment for s1: 1 submission(s) queued" in prof_page.inner_text(".notice")
        with sqlite3.connect(server.course / "server" / "course.db") as db:
            jobs = db.execute("SELECT count(*) FROM jobs JOIN submissions ON submissions.id = submission_id "
                              "WHERE student_id = 's1'").fetchone()[0]
            audit = [r[0] for r in db.execute("SELECT action FROM audit_log ORDER BY id")]
        assert jobs == 2 and audit == ["extension", "deadline", "deadline", "regrade"]
        shots(prof_page, folder, "regraded")

        # the sign-in page, to a browser without a session
        stranger = person(browser).new_page()
        answer = stranger.goto(server.url + "/instructor")
        assert answer is not None and answer.status == 401 and "Autograd test course" in stranger.inner_text("body")
        shots(stranger, folder, "sign-in")
        answer = student.goto(server.url + "/instructor")
        assert answer is not None and answer.status == 403 and "Autograd test course" in student.inner_text("body")


def _row_texts(page: Page) -> list[list[str]]:
    rows = page.locator("table.class tbody tr")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def _class_deadline(server: Server) -> float:
    text = (server.course / "course.toml").read_text()
    moment = text.split("deadline = ", 1)[1].split("\n", 1)[0]
    return datetime.fromisoformat(moment).timestamp()


def test_a_cross_site_form_post_changes_nothing(served: tuple[Server, dict[str, str], str]) -> None:
    """A page of another origin (another port of the same host: a sibling site, so the Strict session cookie goes
    with it) posts the instructor's forms and the student's upload in the instructor's signed-in browser: each is
    refused (403, Origin names the other page) and the store is unchanged."""
    server, tokens, prof = served
    target = server.url
    attack = (f'<form id="d" method="post" action="{target}/instructor/deadlines"><input name="action" value="set">'
              '<input name="assignment" value="hw1"><input name="student" value="s2"><input name="days" value="9">'
              "</form><script>document.getElementById('d').submit()</script>")

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(attack.encode())

        def log_message(self, *args: object) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    before = _audit(server)
    try:
        with browsing() as browser:
            page = person(browser).new_page()
            _signed_in(page, _login(server, prof))
            with page.expect_response(f"{target}/instructor/deadlines") as answer:
                page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
            assert answer.value.status == 403 and "another site" in answer.value.text()
    finally:
        evil.shutdown()
        evil.server_close()
    assert _audit(server) == before
    # and by hand: no Origin nor Referer, or another site's, with a valid session: refused before any route runs
    session = _session(server, tokens["s2"])
    body, kind = _form({"assignment": "hw1", "key": "k-cross"}, ("x.py", b"print(1)\n"))
    for origin in ({}, {"Origin": "http://evil.example"}, {"Origin": "null"}):
        status, text = _call(server, "/me/submit", method="POST", body=body,
                             headers={"Cookie": f"grader_session={session}", "Content-Type": kind, **origin})
        assert status == 403, (origin, status, text)
    assert _audit(server) == before


def _audit(server: Server) -> list[tuple[object, ...]]:
    with sqlite3.connect(server.course / "server" / "course.db") as db:
        return db.execute("SELECT * FROM audit_log").fetchall() + db.execute("SELECT * FROM rule_overrides").fetchall()


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_deadline_set_on_one_server_holds_on_another_at_once(tmp_path: Path, store: str) -> None:
    """Two servers of one course on one store (as behind a load balancer): an extension and a deadline set from
    one server's page hold on that server's next request, and on the other's once it asks the store again (within
    grader.service.deadlines.REFRESH_EVERY); the upload form's checks are the API's."""
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres()).url if store == "postgresql" else ""
        course, tokens, prof = _course(tmp_path / "course", database, uploads_per_minute=3)
        first = stack.enter_context(_serving(course))
        second = stack.enter_context(_serving(course))
        session = _session(first, prof)
        origin = {"Cookie": f"grader_session={session}", "Origin": first.url,
                  "Content-Type": "application/x-www-form-urlencoded"}
        status, _ = _call(first, "/instructor/deadlines", method="POST", headers=origin,
                          body=b"action=set&assignment=hw1&student=s1&when=2031-05-01T12:00")
        assert status == 200  # the redirect to the page, followed

        def hw1_on(server: Server, student: str) -> dict[str, Any]:
            found: dict[str, Any] = json.loads(_call(server, "/api/status", tokens[student])[1])["assignments"][0]
            return found

        extended = datetime(2031, 5, 1, 12, tzinfo=UTC).timestamp()
        assert hw1_on(first, "s1")["deadline"] == extended  # at once where it was set
        wait_until(lambda: hw1_on(second, "s1")["deadline"] == extended, 10, "the extension on the other server")
        assert hw1_on(second, "s1")["extended"]
        status, _ = _call(first, "/instructor/deadlines", method="POST", headers=origin,
                          body=b"action=none&assignment=hw1&student=")
        assert status == 200 and hw1_on(first, "s2")["deadline"] is None
        wait_until(lambda: hw1_on(second, "s2")["deadline"] is None, 10, "no deadline on the other server")
        status, page = _call(second, "/instructor/deadlines", headers={"Cookie": f"grader_session={session}"})
        assert status == 200 and page.count("set on this page by prof") == 2 and "2031-05-01 12:00:00 UTC" in page
        bad = _call(first, "/instructor/deadlines", method="POST", headers=origin,
                    body=b"action=set&assignment=hw1&student=s1&when=tomorrow")
        assert bad[0] == 422 and "not a date and time" in bad[1]

        # the upload form: the API's checks and refusals, its rate limit (3 a minute here), a resend stored once
        student = {"Cookie": f"grader_session={_session(second, tokens['s2'])}", "Origin": second.url}
        right = (NODE_MUL / "correct_lesson_style.py").read_bytes()

        def send(name: str, content: bytes, key: str) -> tuple[int, str]:
            body, kind = _form({"assignment": "hw1", "key": key}, (name, content))
            return _call(second, "/me/submit", method="POST", body=body, headers={**student, "Content-Type": kind})

        assert send("big.py", b"x = 1\n" * 20_000, "k1")[0] == 413
        first_send = send("mine.py", right, "k2")
        assert first_send[0] == 201 and "Received: submission" in first_send[1]
        again = send("mine.py", right, "k2")
        assert again[0] == 200 and "already received" in again[1]
        limited = send("model.pdf", b"%PDF-1.4", "k3")
        assert limited[0] == 429 and "Too many uploads" in limited[1]


@contextlib.contextmanager
def _serving(course: Path) -> Iterator[Server]:
    server = Server(course, workers=0).start()
    try:
        yield server
    finally:
        server.stop()


def test_the_gradebook_command_counts_the_pages_deadlines(tmp_path: Path) -> None:
    """`grade gradebook` reads the store's deadlines too: what the page set is what the LMS gets. course.toml's
    deadline passed a day ago, so s1's file is a day late (25% off); the page moves the deadline to tomorrow."""
    course, tokens, prof = _course(tmp_path / "course", deadline=-timedelta(days=1))
    with _serving(course) as server:
        late = server.submit(tokens["s1"], str(NODE_MUL / "correct_lesson_style.py"), "--no-wait")
        assert late.returncode == 0 and "late" in late.stdout, late.stdout
        session = _session(server, prof)
        tomorrow = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S")
        status, _ = _call(server, "/instructor/deadlines", method="POST",
                          body=f"action=set&assignment=hw1&student=&when={tomorrow}%2B00:00".encode(),
                          headers={"Cookie": f"grader_session={session}", "Origin": server.url,
                                   "Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200
    worker = grade("worker", "--course", str(course), "--idle-exit", "2", timeout=300)
    assert worker.returncode == 0, worker.stderr
    done = grade("gradebook", "hw1", "--course", str(course))
    assert done.returncode == 0, done.stderr
    book = (course / "server" / "gradebook" / "hw1" / "gradebook.csv").read_text()
    assert "Cat Three,s3,,,A,0" in book and ",s1,,,A,10\n" in book, book  # on time by the page's deadline


def test_a_student_can_use_none_of_the_instructors_forms(served: tuple[Server, dict[str, str], str]) -> None:
    """A student who read the code posts the instructor's forms from the server's own origin with their session:
    each is refused (403) and the store is unchanged; a path that is nothing is the course's 404 page."""
    server, tokens, _ = served
    before = _audit(server)
    student = {"Cookie": f"grader_session={_session(server, tokens['s3'])}", "Origin": server.url,
               "Content-Type": "application/x-www-form-urlencoded"}
    for path, body in (("/instructor/deadlines", b"action=set&assignment=hw1&student=s3&days=30"),
                       ("/instructor/regrade", b"assignment=&student="), ("/instructor/publish", b"assignment=hw1")):
        status, page = _call(server, path, method="POST", body=body, headers=student)
        assert status == 403 and "Instructors only" in page, (path, status)
    assert _call(server, "/instructor/class.csv", headers=student)[0] == 403
    assert _audit(server) == before
    status, page = _call(server, "/no/such/page")
    assert status == 404 and "Autograd test course" in page and "<h1>Not found</h1>" in page
    status, text = _call(server, "/api/no-such-thing", tokens["s3"])
    assert status == 404 and "API" in json.loads(text)["error"]


def test_a_worker_that_stopped_leaves_the_listing(served: tuple[Server, dict[str, str], str]) -> None:
    """A worker that stopped as asked is listed a few minutes ("stopped"), then no more; a lost one would stay."""
    import time

    server, _, prof = served
    for name in ("w-earlier", "w-just-now"):
        done = grade("worker", "--course", str(server.course), "--name", name, "--idle-exit", "1", timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(server.course / "server" / "course.db") as db:
        changed = db.execute("UPDATE workers SET stopped_at = ? WHERE id LIKE 'w-earlier%'", (time.time() - 600,))
        assert changed.rowcount == 1
    status, page = _call(server, "/instructor", headers={"Cookie": f"grader_session={_session(server, prof)}"})
    assert status == 200 and "w-just-now" in page and "w-earlier" not in page, page[-3000:]
