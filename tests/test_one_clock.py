"""One clock (grader.service.policy.clock): an upload's time is when the server had it whole, not when the store
wrote it; and every moment a student reads, the receipt and `grade submit --status` and `--history` included, is in
the course's zone. A real `grade serve` on loopback, its store held by the test (SQLite's write lock, PostgreSQL's row
lock on the student) while an upload waits for it and a deadline passes; then the real client."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import (
    SAMPLES,
    Server,
    call,
    course_folder,
    instructor_token,
    issue_tokens,
    page_session,
    post_form,
    postgres,
)

pytestmark = pytest.mark.slow
RIGHT = SAMPLES / "node-mul" / "correct_lesson_style.py"
#: seconds between sending the upload and the deadline, and between the deadline and the store's release: wide,
#: so that a loaded machine's scheduling cannot decide the test
MARGIN = 2.0


def _course(folder: Path, database: str) -> tuple[Path, dict[str, str], str]:
    deadline = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = course_folder(folder, deadline=deadline, students=["s1", "s2"])
    top = 'timezone = "Europe/Paris"\n' + (f'database = "{database}"\n' if database else "")
    (course / "course.toml").write_text(top + (course / "course.toml").read_text())
    return course, issue_tokens(course), instructor_token(course)


@contextlib.contextmanager
def _store_held(course: Path, database: str) -> object:
    """The store held against the upload's writes: SQLite's write lock, or (PostgreSQL) the student's row, which an
    upload locks first."""
    if not database:
        db = sqlite3.connect(course / "server" / "course.db", isolation_level=None, timeout=30)
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            db.execute("ROLLBACK")
            db.close()
        return
    import psycopg

    with psycopg.connect(database) as db:
        db.execute("SELECT id FROM students WHERE id = 's1' FOR UPDATE")
        try:
            yield
        finally:
            db.rollback()


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_an_upload_is_timed_when_it_arrived_not_when_the_store_wrote_it(tmp_path: Path, store: str) -> None:
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres()).url if store == "postgresql" else ""
        course, tokens, prof = _course(tmp_path / "course", database)
        server = stack.enter_context(_serving(course))
        session = page_session(server, prof)
        answer: dict[str, object] = {}

        def upload() -> None:
            status, body = call(server, "/api/submissions?assignment=hw1", tokens["s1"], "POST", RIGHT.read_bytes(),
                                {"Idempotency-Key": "clock-1", "X-Filename": "mine.py"})
            answer.update(status=status, receipt=json.loads(body))

        deadline = time.time() + 4 * MARGIN  # set now, before the store is held: a page's change writes to it
        _set_deadline(server, session, deadline)
        deadline = float(json.loads(call(server, "/api/status", tokens["s1"])[1])["assignments"][0]["deadline"])
        with _store_held(course, database):
            sent = time.time()
            sender = threading.Thread(target=upload)
            sender.start()
            time.sleep(max(0.0, deadline + MARGIN - time.time()))  # the deadline passes while the upload waits
            released = time.time()
        sender.join(60)
        assert answer["status"] == 201, answer
        receipt = answer["receipt"]
        assert isinstance(receipt, dict)
        stamped = float(receipt["received_at"])
        # when it arrived, a moment after it was sent; not when it was written, after the store was released
        assert sent <= stamped < deadline < released, (sent, stamped, deadline, released)
        assert receipt["days_late"] == 0 and not receipt["late"], receipt
        history = json.loads(call(server, "/api/history", tokens["s1"])[1])["submissions"]
        assert history[0]["days_late"] == 0, history  # on time: it was whole before the deadline
        # the receipt shows its time in the course's zone
        assert str(receipt["server_time"]).endswith(("+01:00", "+02:00")) and " CE" in str(receipt["received"])

        # the real client: its receipt, --status and --history in the course's zone, never UTC
        late = server.submit(tokens["s2"], str(RIGHT), "--no-wait")
        assert late.returncode == 0 and "received 20" in late.stdout and " CE" in late.stdout, late.stdout
        for flag in ("--status", "--history"):
            shown = server.submit(tokens["s1"], flag)
            assert shown.returncode == 0 and " CE" in shown.stdout and "UTC" not in shown.stdout, shown.stdout


def _set_deadline(server: Server, session: str, moment: float) -> None:
    when = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    status, page = post_form(server, session, "/instructor/deadlines",
                             {"action": "set", "assignment": "hw1", "student": "", "when": when})
    assert status == 200 and "deadline of hw1" in page, page[-2000:]


@contextlib.contextmanager
def _serving(course: Path) -> object:
    server = Server(course, workers=0).start()
    try:
        yield server
    finally:
        server.stop()
