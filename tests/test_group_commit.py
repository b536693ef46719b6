"""Group commit on SQLite: uploads waiting at one moment commit in one transaction, each told its outcome
only after that commit; one that fails costs only itself; and kill -9 of a real `grade serve` during a burst of
uploads from many students at once loses no acknowledged submission."""

from __future__ import annotations

import hashlib
import http.client
import sqlite3
import threading
import urllib.error
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, Server, course_folder, issue_tokens, wait_until
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from test_service_durability import _upload

from grader.service.db import schema
from grader.service.db.group_commit import GroupWriter
from grader.service.db.store import open_store


def test_uploads_waiting_together_commit_together_and_one_failure_costs_only_itself(tmp_path: Path) -> None:
    engine = open_store(f"sqlite:///{tmp_path / 'course.db'}")
    writer = GroupWriter(engine)
    callers = 48
    start = threading.Barrier(callers)
    outcomes: dict[int, object] = {}
    committed_before: dict[int, bool] = {}

    def caller(n: int) -> None:
        name = "twice" if n in (0, 1) else f"s{n}"  # two of them write the same key: one of those must fail

        def work(db: object) -> str:
            db.execute(insert(schema.students).values(id=name, name=f"Student {n}"))  # type: ignore[attr-defined]
            return name

        start.wait()
        try:
            outcomes[n] = writer.run(work)
        except IntegrityError as exc:
            outcomes[n] = exc
        # what run() returned is on disk already: another connection, opened now, reads it
        with sqlite3.connect(tmp_path / "course.db") as other:
            committed_before[n] = other.execute("SELECT count(*) FROM students WHERE id = ?",
                                                (name,)).fetchone()[0] == 1

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [n for n, outcome in outcomes.items() if isinstance(outcome, IntegrityError)]
    assert len(failed) == 1 and failed[0] in (0, 1), outcomes
    assert all(committed_before.values()) and len(committed_before) == callers
    with engine.connect() as db:
        stored = set(db.execute(select(schema.students.c.id)).scalars())
    assert stored == {"twice", *(f"s{n}" for n in range(2, callers))}
    assert writer.written == callers - 1
    assert writer.commits < callers / 2, f"{writer.commits} transactions for {callers} uploads waiting together"


@pytest.mark.slow
def test_kill_9_during_a_burst_of_uploads_loses_no_acknowledged_submission(tmp_path: Path) -> None:
    students = [f"b{i:02d}" for i in range(40)]
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = course_folder(tmp_path / "course", deadline=deadline, students=students, per_day=0,
                           uploads_per_minute=0)
    tokens = issue_tokens(course)
    server = Server(course, workers=0).start()
    receipts: list[tuple[dict[str, object], str]] = []
    lock = threading.Lock()
    go = threading.Barrier(len(students))
    body = (SAMPLES / "node-mul" / "correct_lesson_style.py").read_bytes()

    def student(name: str) -> None:
        go.wait()  # all at once, as at a deadline: many uploads wait for each commit
        for n in range(1000):
            mine = body + f"# {name} try {n}\n".encode()
            try:
                receipt = _upload(server.url, tokens[name], mine, f"{name}-{n}")
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError):
                return  # the server is gone: what was acknowledged must all be there (a cut reply was not)
            with lock:
                receipts.append((receipt, hashlib.sha256(mine).hexdigest()))

    threads = [threading.Thread(target=student, args=(s,)) for s in students]
    for thread in threads:
        thread.start()
    wait_until(lambda: len(receipts) >= 300, 120, "300 receipts")
    server.kill9()
    for thread in threads:
        thread.join()
    with sqlite3.connect(course / "server" / "course.db", timeout=30) as db:
        stored = dict(db.execute("SELECT id, sha256 FROM submissions").fetchall())
        jobs = {row[0] for row in db.execute("SELECT submission_id FROM jobs")}
    missing = [r for r, digest in receipts if stored.get(int(r["submission"])) != digest]  # type: ignore[call-overload]
    assert not missing, f"{len(missing)} of {len(receipts)} acknowledged submissions lost"
    assert all(int(r["submission"]) in jobs for r, _ in receipts)  # type: ignore[call-overload]
    assert len(receipts) >= 300
