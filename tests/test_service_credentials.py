"""Credentials with a lifecycle on the course server, on SQLite and on PostgreSQL: a
session and a login link belong to the token that made them and end with it (`grade tokens --again`, `--instructor`),
a session cannot make a new credential, a page's state-changing request must come from the server's own pages
(Origin, else Referer), and an idempotency key is one student's for one assignment. A real `grade serve` on a
loopback port, requests made as a browser and a script would make them; and a v0002 store with data, upgraded."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, Server, course_folder, grade, instructor_token, postgres

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"
EVIL = "http://evil.example"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, object]:
        found: dict[str, object] = json.loads(self.body)
        return found


def call(server: Server, method: str, path: str, *, token: str | None = None, cookie: str | None = None,
         body: bytes | None = None, headers: dict[str, str] | None = None) -> Answer:
    """One request, as a browser (a cookie, maybe an Origin) or a script (a bearer token) sends it; no redirects."""
    where = urllib.parse.urlsplit(server.url)
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    if cookie is not None:
        sent["Cookie"] = f"grader_session={cookie}"
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def reissue(course: Path) -> dict[str, str]:
    """`grade tokens --again`: a new token for every roster student (each old one revoked); the new ones."""
    done = grade("tokens", "--course", str(course), "--again")
    assert done.returncode == 0, done.stderr
    return {line.split(",")[0]: line.split(",")[-1].strip() for line in done.stdout.strip().splitlines()[1:]}


def link_of(server: Server, token: str) -> str:
    """A one-time login link's path, made with the token (as `grade submit --login` does)."""
    made = call(server, "POST", "/api/login-link", token=token, body=b"")
    assert made.status == 200, made.body
    return urllib.parse.urlsplit(str(made.json()["url"])).path


def cookie_of(answer: Answer) -> str:
    return answer.headers.get("set-cookie", "").split(";")[0].partition("=")[2]


def session_of(server: Server, token: str) -> str:
    """The session cookie a browser gets from opening the token's login link and signing in on its page."""
    path = link_of(server, token)
    assert call(server, "GET", path).status == 200
    opened = call(server, "POST", path, body=b"", headers={"Origin": server.url})
    assert opened.status == 303, opened.body
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith("grader_session=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    return cookie.split(";")[0].split("=", 1)[1]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    extra = f'\n[assignments.hw0]\nexercises = ["node-add"]\ndeadline = {deadline}\n'
    folder = course_folder(tmp_path_factory.mktemp(f"cred-{request.param}"), deadline=deadline,
                           students=["s1", "s2", "s3"], extra=extra)
    with postgres() if request.param == "postgresql" else _nothing() as pg:
        if pg is not None:
            toml = folder / "course.toml"
            toml.write_text(f'database = "{pg.url}"\n' + toml.read_text())
        server = Server(folder, workers=0).start()  # nothing here needs grading
        try:
            yield server
        finally:
            server.stop()


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


def test_sessions_and_links_end_with_their_token(served: Server) -> None:
    tokens = reissue(served.course)
    cookie = session_of(served, tokens["s1"])
    assert call(served, "GET", "/api/status", cookie=cookie).status == 200
    assert call(served, "GET", "/me", cookie=cookie).status == 200
    pending = link_of(served, tokens["s1"])  # made, not yet opened, when the token is reissued
    fresh = reissue(served.course)
    assert call(served, "GET", "/api/status", token=tokens["s1"]).status == 401
    # the old token's session ends with it, on its very next request: the API and the pages alike
    assert call(served, "GET", "/api/status", cookie=cookie).status == 401
    assert call(served, "GET", "/me", cookie=cookie).status == 401
    own = {"Origin": served.url}
    assert call(served, "POST", "/api/login-link", cookie=cookie, body=b"", headers=own).status == 401
    assert call(served, "GET", pending).status == 403  # its link too: "expired or was used"
    assert call(served, "GET", "/api/status", token=fresh["s1"]).status == 200
    assert call(served, "GET", "/api/status", cookie=session_of(served, fresh["s1"])).status == 200
    # a revoked token's sessions end as well
    other = session_of(served, fresh["s2"])
    assert grade("tokens", "--course", str(served.course), "--revoke", "s2").returncode == 0
    assert call(served, "GET", "/me", cookie=other).status == 401


def test_a_login_link_sent_to_a_classmate_asks_before_it_signs_in(served: Server) -> None:
    """Login CSRF: s1 sends their own link to s2. Opening it used to sign s2's browser in as s1 (whose account
    then got whatever s2 uploaded from the pages); now the link's page names s1 and signs in nobody, and only its
    own form, posted from this server's page, spends it."""
    tokens = reissue(served.course)
    path = link_of(served, tokens["s1"])
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
    late = link_of(served, tokens["s2"])
    reissue(served.course)
    assert call(served, "GET", late).status == 403


def test_a_session_cannot_make_a_login_link(served: Server) -> None:
    """Else a leaked cookie renews itself for ever: a link, a fresh session, another link..."""
    token = reissue(served.course)["s1"]
    for cookie in (session_of(served, token), session_of(served, instructor_token(served.course))):
        minted = call(served, "POST", "/api/login-link", cookie=cookie, body=b"", headers={"Origin": served.url})
        assert minted.status == 403 and "token" in str(minted.json()["error"])
        assert call(served, "GET", "/api/status", cookie=cookie).status == 200  # the session itself still works


def test_an_instructors_session_ends_with_their_token(served: Server) -> None:
    prof = instructor_token(served.course)
    cookie = session_of(served, prof)
    assert call(served, "GET", "/instructor", cookie=cookie).status == 200
    reissued = instructor_token(served.course)
    assert call(served, "GET", "/instructor", cookie=cookie).status == 401
    assert call(served, "GET", "/instructor/students/s1", cookie=cookie).status == 401
    assert call(served, "GET", "/api/history?student=s1", cookie=cookie).status == 401
    assert call(served, "GET", "/instructor", cookie=session_of(served, reissued)).status == 200


def _queued(served: Server) -> int:
    return int(json.loads(call(served, "GET", "/healthz").body)["queue"]["queued"])


def test_a_pages_request_from_another_site_is_refused_and_changes_nothing(served: Server) -> None:
    student = reissue(served.course)["s3"]
    body = (NODE_MUL / "correct_lesson_style.py").read_bytes()
    upload = call(served, "POST", "/api/submissions?exercise=node-mul", token=student, body=body,
                  headers={"Idempotency-Key": "page-1", "X-Filename": "mine.py"})
    assert upload.status == 201, upload.body
    cookie = session_of(served, instructor_token(served.course))
    queued = _queued(served)
    for headers in ({"Origin": EVIL}, {"Referer": f"{EVIL}/grades.html"}, {}, {"Origin": "null"},
                    {"Origin": EVIL, "Referer": f"{served.url}/instructor"}):
        refused = call(served, "POST", "/api/regrade", cookie=cookie, body=b"", headers=headers)
        assert refused.status == 403, (headers, refused.body)
        assert _queued(served) == queued  # nothing was done
    # a student's page upload from another site: refused, nothing stored
    mine = session_of(served, student)
    before = call(served, "GET", "/api/history", token=student).json()["submissions"]
    forged = call(served, "POST", "/api/submissions?exercise=node-mul", cookie=mine, body=body,
                  headers={"Origin": EVIL, "Idempotency-Key": "page-2", "X-Filename": "mine.py"})
    assert forged.status == 403
    assert call(served, "GET", "/api/history", token=student).json()["submissions"] == before
    # the server's own page, and a script with the token (which no browser sends by itself), may
    own = call(served, "POST", "/api/regrade", cookie=cookie, body=b"", headers={"Origin": served.url})
    assert own.status == 200 and own.json()["queued"] == 1 and _queued(served) == queued + 1
    by_token = call(served, "POST", "/api/regrade", token=instructor_token(served.course), body=b"",
                    headers={"Origin": EVIL})
    assert by_token.status == 200
    # an LTI launch is the LMS's cross-site POST by design, checked by its id_token: a session cookie an LMS on the
    # same site sends along does not stop it at the door (this course has no [lti]: the launch's own answer)
    launch = call(served, "POST", "/lti/launch", cookie=mine, body=b"id_token=x&state=y",
                  headers={"Origin": EVIL, "Content-Type": "application/x-www-form-urlencoded"})
    assert b"another site" not in launch.body and launch.status != 500


def test_an_idempotency_key_belongs_to_one_assignment(served: Server) -> None:
    token = reissue(served.course)["s1"]
    hw1, add = (NODE_MUL / "correct_lesson_style.py").read_bytes(), b"# exercise: node-add\nclass Node:\n    pass\n"

    def send(query: str, body: bytes) -> Answer:
        return call(served, "POST", f"/api/submissions?{query}", token=token, body=body,
                    headers={"Idempotency-Key": "the-same-key", "X-Filename": "mine.py"})

    first = send("exercise=node-mul", hw1)
    other = send("assignment=hw0", add)  # the key again, for another assignment: a new upload, stored for hw0
    assert (first.status, other.status) == (201, 201), other.body
    assert other.json()["assignment"] == "hw0" and other.json()["submission"] != first.json()["submission"]
    assert other.json()["replayed"] is False
    retried = send("assignment=hw0", add)  # a retry of the hw0 upload is still that upload
    assert retried.status == 200 and retried.json()["submission"] == other.json()["submission"]
    assert send("exercise=node-mul", add).status == 409  # and another file under hw1's key is still refused
    history: list[dict[str, object]] = call(served, "GET", "/api/history", token=token).json()["submissions"]  # type: ignore[assignment]
    stored = {(s["assignment"], s["submission"]) for s in history}
    assert ("hw0", other.json()["submission"]) in stored and ("hw1", first.json()["submission"]) in stored


def _v0002_store(url: str) -> None:
    """A store as v0002 left it, with a student, a token, a session, and a submission under a key."""
    from sqlalchemy import text

    from grader.service.db.store import migrate, open_store, writing

    engine = open_store(url, migrate_now=False)
    migrate(engine, "0002")
    with writing(engine) as db:
        db.execute(text("INSERT INTO students (id, name, email, sis_user_id, sis_login_id, section, role, "
                        "lti_user_id) VALUES ('s1', 'Ann', '', '', '', '', 'student', '')"))
        db.execute(text("INSERT INTO tokens (id, student_id, digest, created_at) VALUES ('t1', 's1', 'd', 1.0)"))
        db.execute(text("INSERT INTO sessions (digest, student_id, kind, expires_at) VALUES ('x', 's1', 'session', "
                        "4e9)"))
        db.execute(text("INSERT INTO submissions (student_id, assignment, idempotency_key, sha256, filename, suffix, "
                        "content, received_at, days_late, seed, seed_token) VALUES ('s1', 'hw1', 'k', 'h', 'a.py', "
                        "'.py', :content, 5.0, 0, 7, 's1-00')"), {"content": b"x = 1\n"})
    engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_v0002_store_with_data_is_upgraded(kind: str, tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    from grader.service.db.schema import metadata
    from grader.service.db.store import open_store, reading, writing

    with postgres() if kind == "postgresql" else _nothing() as pg:
        url = pg.url if pg is not None else f"sqlite:///{tmp_path / 'old.db'}"
        _v0002_store(url)
        engine = open_store(url)  # migrated to the newest on opening, as grade serve does
        with reading(engine) as db:
            assert db.execute(text("SELECT id, name FROM students")).all() == [("s1", "Ann")]
            assert db.execute(text("SELECT student_id, assignment, idempotency_key, content FROM submissions")
                              ).all() == [("s1", "hw1", "k", b"x = 1\n")]
            # a session that names no token could outlive a revoked one: ended, its student signs in again
            assert db.execute(text("SELECT count(*) FROM sessions")).scalar_one() == 0
        insert = text("INSERT INTO submissions (student_id, assignment, idempotency_key, sha256, filename, suffix, "
                      "content, received_at, days_late, seed, seed_token) VALUES ('s1', :a, 'k', 'h', 'a.py', '.py', "
                      ":c, 6.0, 0, 7, 's1-00')")
        with writing(engine) as db:  # the same key for another assignment: stored
            db.execute(insert, {"a": "hw0", "c": b"y = 2\n"})
        with pytest.raises(IntegrityError), writing(engine) as db:  # for the same one: still once
            db.execute(insert, {"a": "hw1", "c": b"y = 2\n"})
        with engine.connect() as connection:  # and the migrations leave the store as schema.py says
            assert compare_metadata(MigrationContext.configure(connection), metadata) == []
        engine.dispose()
