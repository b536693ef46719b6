"""Nothing lost, each with a real `grade serve` on a real SQLite file: kill -9 of the server during
a stream of uploads loses no acknowledged submission; kill -9 of the machine's grading (server and workers) while a
submission is graded grades it after the restart; a store that cannot be written fails the upload loudly."""

from __future__ import annotations

import hashlib
import http.client
import json
import sqlite3
import threading
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, Server, course_folder, issue_tokens, wait_until

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"


def _course(tmp: Path, students: list[str]) -> Path:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return course_folder(tmp, deadline=deadline, students=students, per_day=0, uploads_per_minute=0)


def _db(course: Path) -> sqlite3.Connection:
    return sqlite3.connect(course / "server" / "course.db", timeout=30)


def _upload(url: str, token: str, body: bytes, key: str) -> dict[str, object]:
    request = urllib.request.Request(url + "/api/submissions?exercise=node-mul", data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Idempotency-Key": key, "X-Filename": "mine.py"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.loads(response.read()))


def test_kill_9_of_the_server_loses_no_acknowledged_submission(tmp_path: Path) -> None:
    students = [f"k{i}" for i in range(6)]
    course = _course(tmp_path / "course", students)
    tokens = issue_tokens(course)
    server = Server(course, workers=1).start()
    receipts: list[tuple[dict[str, object], str]] = []
    lock = threading.Lock()

    def student(name: str) -> None:
        for n in range(200):
            body = (NODE_MUL / "correct_lesson_style.py").read_bytes() + f"# {name} try {n}\n".encode()
            try:
                receipt = _upload(server.url, tokens[name], body, f"{name}-{n}")
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError):
                return  # the server is gone: what was acknowledged must all be there (a cut reply was not)
            with lock:
                receipts.append((receipt, hashlib.sha256(body).hexdigest()))

    threads = [threading.Thread(target=student, args=(s,)) for s in students]
    for thread in threads:
        thread.start()
    wait_until(lambda: len(receipts) >= 40, 60, "40 receipts")
    server.kill9(workers_too=True)
    for thread in threads:
        thread.join()
    with _db(course) as db:
        stored = dict(db.execute("SELECT id, sha256 FROM submissions").fetchall())
    missing = [r for r, digest in receipts if stored.get(int(r["submission"])) != digest]  # type: ignore[call-overload]
    assert not missing and len(receipts) >= 40, f"{len(missing)} acknowledged submissions lost"
    server.start()  # and each of them is graded after the restart
    try:
        wait_until(lambda: _db(course).execute("SELECT count(*) FROM jobs WHERE state != 'done'").fetchone()[0] == 0,
                   240, "every stored submission graded")
        with _db(course) as db:
            graded = db.execute("SELECT count(DISTINCT submission_id) FROM results WHERE outcome = 'graded'"
                                ).fetchone()[0]
        assert graded == len(stored)
    finally:
        server.stop()


def test_what_was_being_graded_when_the_machine_died_is_graded_after_the_restart(tmp_path: Path) -> None:
    course = _course(tmp_path / "course", ["a", "b"])
    tokens = issue_tokens(course)
    server = Server(course, workers=1).start()
    looping = _upload(server.url, tokens["a"], (NODE_MUL / "infinite_loop.py").read_bytes(), "loop")
    queued = _upload(server.url, tokens["b"], (NODE_MUL / "swapped_slopes.py").read_bytes(), "behind")
    wait_until(lambda: _db(course).execute("SELECT state FROM jobs WHERE submission_id = ?",
                                           (looping["submission"],)).fetchone()[0] == "running", 60, "grading")
    server.kill9(workers_too=True)
    with _db(course) as db:
        assert db.execute("SELECT count(*) FROM results").fetchone()[0] == 0
    server.start()
    try:
        for receipt in (looping, queued):
            wait_until(lambda r=receipt: _db(course).execute(  # type: ignore[misc]
                "SELECT count(*) FROM results WHERE submission_id = ?", (r["submission"],)).fetchone()[0] == 1,
                120, f"submission {receipt['submission']} graded")
        with _db(course) as db:
            attempts, outcome = db.execute("SELECT j.attempts, r.outcome FROM jobs j JOIN results r ON r.job_id = j.id "
                                           "WHERE j.submission_id = ?", (looping["submission"],)).fetchone()
        assert attempts == 2 and outcome == "graded"  # its timeout is its own result, graded on the second try
    finally:
        server.stop()


def test_a_store_that_cannot_be_written_fails_the_upload_loudly(tmp_path: Path) -> None:
    course = _course(tmp_path / "course", ["w"])
    tokens = issue_tokens(course)
    server = Server(course, workers=0, env={"AUTOGRADER_DB_BUSY_SECONDS": "1"}).start()
    try:
        blocker = _db(course)
        blocker.isolation_level = None
        blocker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock, and keeps it
        done = server.submit(tokens["w"], str(NODE_MUL / "overwrite.py"), "--no-wait", timeout=120,
                             env={"AUTOGRADER_SUBMIT_RETRIES": "1"})
        blocker.execute("ROLLBACK")
        assert done.returncode == 2 and "NOT stored" in done.stderr and "busy" in done.stderr, done.stderr
        assert "Received" not in done.stdout
        with _db(course) as db:
            assert db.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0
        again = server.submit(tokens["w"], str(NODE_MUL / "overwrite.py"), "--no-wait")
        assert again.returncode == 0 and again.stdout.startswith("Received")
    finally:
        server.stop()
