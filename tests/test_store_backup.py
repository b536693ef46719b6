"""`grade store backup` and `restore` during a surge, on a real `grade serve` with its own worker,
on SQLite and on a real PostgreSQL: students upload from threads while the backup runs.

What "acknowledged" means here, precisely: the server gives a receipt only after the upload's transaction has
committed, and the backup's snapshot is taken after `grade store backup` starts. So every receipt a client had
in hand before the backup command started is in the backup, with its bytes; no upload sent after the command
ended is in it; and nothing is in it that no client got a receipt for. After the restore, on a new server,
each backed-up submission is served to its student with their old token, and the queue drains.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import (
    SAMPLES,
    Postgres,
    Server,
    course_folder,
    grade,
    issue_tokens,
    postgres,
    serving,
    wait_until,
)

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"
STUDENTS = [f"b{i}" for i in range(6)]


@dataclass(frozen=True)
class Sent:
    student: str
    submission: int
    sha256: str
    sent: float
    received: float


def _course(folder: Path, database: str = "") -> Path:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course_folder(folder, deadline=deadline, students=STUDENTS, per_day=0, uploads_per_minute=0)
    if database:
        toml = folder / "course.toml"
        toml.write_text(f'database = "{database}"\n' + toml.read_text())
    return folder


def _upload(url: str, token: str, body: bytes, key: str) -> dict[str, object]:
    request = urllib.request.Request(url + "/api/submissions?exercise=node-mul", data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Idempotency-Key": key, "X-Filename": "mine.py"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return dict(json.loads(response.read()))


class Surge:
    """Each student uploads again and again from a thread of their own until stopped; every receipt is kept."""

    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        self.sent: list[Sent] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._student, args=(url, s, tokens[s])) for s in STUDENTS]
        for thread in self._threads:
            thread.start()

    def _student(self, url: str, name: str, token: str) -> None:
        n = 0
        while not self._stop.is_set():
            body = (NODE_MUL / "correct_lesson_style.py").read_bytes() + f"# {name} try {n}\n".encode()
            sent = time.monotonic()
            receipt = _upload(url, token, body, f"{name}-{n}")
            with self._lock:
                self.sent.append(Sent(name, int(receipt["submission"]),  # type: ignore[call-overload]
                                      hashlib.sha256(body).hexdigest(), sent, time.monotonic()))
            n += 1
            time.sleep(0.1)

    def count(self) -> int:
        with self._lock:
            return len(self.sent)

    def stop(self) -> list[Sent]:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        return self.sent


def _backup_during_the_surge(course: Path, dest: Path, tokens: dict[str, str]) -> tuple[list[Sent], float, float]:
    """Back up while the students upload; every receipt, and the moments the backup command started and ended."""
    server = Server(course, workers=1).start()
    try:
        surge = Surge(server.url, tokens)
        wait_until(lambda: surge.count() >= 30, 120, "30 receipts before the backup")
        first = surge.sent[0]
        wait_until(lambda: _state(server.url, tokens[first.student], first.submission) == "done", 120,
                   "the server's worker grading")
        refused = grade("store", "restore", "--course", str(course), "--force", str(dest.parent / "none.db"))
        started = time.monotonic()
        done = grade("store", "backup", "--course", str(course), str(dest))
        ended = time.monotonic()
        assert done.returncode == 0, done.stderr
        at_end = surge.count()
        wait_until(lambda: surge.count() >= at_end + 20, 120, "20 receipts after the backup")
        sent = surge.stop()
        # a store its workers grade on is never restored over, --force or not
        assert refused.returncode == 2 and "in use" in refused.stderr and "Stop grade serve" in refused.stderr
    finally:
        server.stop()
    return sent, started, ended


def _check_the_backup_holds_what_was_acknowledged(held: dict[int, str], sent: list[Sent], started: float,
                                                  ended: float) -> None:
    before = [s for s in sent if s.received < started]
    during = [s for s in sent if s.sent < ended and s.received >= started]
    after = [s for s in sent if s.sent > ended]
    assert len(before) >= 30 and after and during, (len(before), len(during), len(after))
    missing = [s for s in before if held.get(s.submission) != s.sha256]
    assert not missing, f"{len(missing)} of {len(before)} receipts given before the backup are not in it"
    assert not [s for s in after if s.submission in held], "an upload sent after the backup ended is in it"
    acknowledged = {s.submission: s.sha256 for s in sent}
    assert all(acknowledged.get(ident) == digest for ident, digest in held.items()), "a submission nobody sent"


def _state(url: str, token: str, submission: int) -> str:
    request = urllib.request.Request(f"{url}/api/submissions/{submission}", headers={
        "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.loads(response.read())["state"])


def _served_after_restore(course: Path, tokens: dict[str, str], held: dict[int, str], sent: list[Sent]) -> None:
    """Each backed-up submission served to its own student, with the token they had, and all of them graded."""
    owner = {s.submission: s.student for s in sent}
    server = Server(course, workers=1).start()
    try:
        for student in STUDENTS:
            request = urllib.request.Request(f"{server.url}/api/history", headers={
                "Authorization": f"Bearer {tokens[student]}"})
            with urllib.request.urlopen(request, timeout=30) as response:
                listed = {s["submission"]: s["sha256"] for s in json.loads(response.read())["submissions"]}
            assert listed == {i: d for i, d in held.items() if owner[i] == student}
        one = next(iter(held))
        assert _state(server.url, tokens[owner[one]], one) in ("queued", "running", "done")
        other = next(s for s in STUDENTS if s != owner[one])
        with pytest.raises(urllib.error.HTTPError) as refused:  # and a student sees only their own, still
            _state(server.url, tokens[other], one)
        assert refused.value.code == 404
        refused.value.close()

        def drained() -> bool:
            with urllib.request.urlopen(f"{server.url}/healthz", timeout=30) as response:
                queue = json.loads(response.read())["queue"]
            return bool(queue["queued"] == queue["running"] == 0 and queue["done"] == len(held))

        wait_until(drained, 240, "the restored queue graded")
    finally:
        server.stop()


def test_a_sqlite_backup_taken_during_a_surge_restores_every_acknowledged_submission(tmp_path: Path) -> None:
    course = _course(tmp_path / "course")
    tokens = issue_tokens(course)
    dest = tmp_path / "backups" / "course.db"
    sent, started, ended = _backup_during_the_surge(course, dest, tokens)
    assert dest.stat().st_mode & 0o777 == 0o600  # it holds every student's code and the tokens' digests
    with sqlite3.connect(dest) as db:
        held = dict(db.execute("SELECT id, sha256 FROM submissions").fetchall())
        orphans = db.execute("SELECT count(*) FROM submissions s LEFT JOIN jobs j ON j.submission_id = s.id "
                             "WHERE j.id IS NULL").fetchone()[0]
    assert orphans == 0  # each submission with its job: one transaction, in the snapshot or not, whole
    _check_the_backup_holds_what_was_acknowledged(held, sent, started, ended)

    # the course's own store now holds more than the backup: restoring over it is refused, and says what to do
    refused = grade("store", "restore", "--course", str(course), str(dest))
    assert refused.returncode == 2 and "--force" in refused.stderr and "grade store backup" in refused.stderr
    again = _course(tmp_path / "again")  # a new machine: the course folder, its secret, and the backup
    (again / "course-secret").write_bytes((course / "course-secret").read_bytes())
    done = grade("store", "restore", "--course", str(again), str(dest))
    assert done.returncode == 0 and f"{len(held)} submission(s) of {len(STUDENTS)} student(s)" in done.stdout, \
        done.stdout + done.stderr
    _served_after_restore(again, tokens, held, sent)

    forced = grade("store", "restore", "--course", str(course), "--force", str(dest))  # in place, when asked
    assert forced.returncode == 0, forced.stderr
    with sqlite3.connect(course / "server" / "course.db") as db:
        assert dict(db.execute("SELECT id, sha256 FROM submissions").fetchall()) == held


def test_a_postgresql_backup_taken_during_a_surge_restores_every_acknowledged_submission(tmp_path: Path) -> None:
    with postgres() as pg:
        course = _course(tmp_path / "course", pg.url)
        tokens = issue_tokens(course)
        dest = tmp_path / "course.pgdump"
        sent, started, ended = _backup_during_the_surge(course, dest, tokens)
        assert dest.read_bytes().startswith(b"PGDMP") and dest.stat().st_mode & 0o777 == 0o600
        pg.psql("CREATE DATABASE restored")
        target = pg.url.rsplit("/", 1)[0] + "/restored"
        again = _course(tmp_path / "again", target)
        (again / "course-secret").write_bytes((course / "course-secret").read_bytes())
        done = grade("store", "restore", "--course", str(again), str(dest))
        assert done.returncode == 0, done.stdout + done.stderr
        held = _pg_submissions(pg, "restored")
        _check_the_backup_holds_what_was_acknowledged(held, sent, started, ended)
        assert f"{len(held)} submission(s)" in done.stdout
        # the backup's workers ran on the old store, not this one: they do not make it look in use
        refused = grade("store", "restore", "--course", str(again), str(dest))
        assert refused.returncode == 2 and "--force" in refused.stderr
        _served_after_restore(again, tokens, held, sent)


def _pg_submissions(pg: Postgres, database: str) -> dict[int, str]:
    rows = pg.psql("SELECT id || ',' || sha256 FROM submissions", database=database).splitlines()
    return {int(line.split(",")[0]): line.split(",")[1] for line in rows}


def test_a_restore_revives_no_revoked_credential(tmp_path: Path) -> None:
    """A backup taken, then every token issued again (`grade tokens --again`: the old ones revoked, their sessions
    ended), then the backup restored in place: the old token and its session stay refused, the new token works,
    and `grade store restore` says which credentials it changed. The restore brought the revoked token and its
    session back (200) and stopped the new one (401), and said nothing."""
    from test_service_credentials import call, reissue, session_of

    course = _course(tmp_path / "course")
    old = issue_tokens(course)
    dest = tmp_path / "backups" / "course.db"
    server = Server(course, workers=0).start()
    try:
        session = session_of(server, old["b0"])
        assert call(server, "GET", "/api/status", cookie=session).status == 200
        done = grade("store", "backup", "--course", str(course), str(dest))
        assert done.returncode == 0, done.stderr
        new = reissue(course)
        assert call(server, "GET", "/api/status", token=old["b0"]).status == 401
    finally:
        server.stop()
    done = grade("store", "restore", "--course", str(course), "--force", str(dest))
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout
    assert f"revoked again: {len(STUDENTS)} token(s) revoked since the backup (b0, b1" in said, said
    assert f"kept: {len(STUDENTS)} token(s) issued since the backup" in said, said
    assert "ended every session and login link the backup held" in said, said
    with serving(course, workers=0) as restored:
        assert call(restored, "GET", "/api/status", token=old["b0"]).status == 401
        assert call(restored, "GET", "/api/status", cookie=session).status == 401
        assert call(restored, "GET", "/api/status", token=new["b0"]).status == 200


def test_the_live_store_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """Every student's code is in it: the SQLite file, its -wal and -shm, and its folder, as `grade serve` made them
    under the usual umask (022); and a store made world-readable before is brought to 0600 when it is opened."""
    import os
    import stat

    course = _course(tmp_path / "course")
    tokens = issue_tokens(course)
    store = course / "server" / "course.db"
    old = os.umask(0o022)
    try:
        server = Server(course, workers=0).start()
        try:
            _upload(server.url, tokens["b0"], (NODE_MUL / "correct_lesson_style.py").read_bytes(), "k-1")
            made = {p.name: stat.S_IMODE(p.stat().st_mode) for p in store.parent.glob("course.db*")}
        finally:
            server.stop()
        assert made == {"course.db": 0o600, "course.db-wal": 0o600, "course.db-shm": 0o600}, made
        assert stat.S_IMODE(store.parent.stat().st_mode) & 0o077 in (0, 0o055)  # made by grade tokens, or by us
        store.chmod(0o644)
        assert grade("tokens", "--course", str(course)).returncode == 0  # opened again
        assert stat.S_IMODE(store.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_a_restore_names_every_missing_course_file_at_once(tmp_path: Path) -> None:
    """A course restored on a new machine from its course.toml and roster alone: the restore names the exercises,
    the course secret, the LMS registration and the tool's key together, and touches no store until they are
    there."""
    import shutil

    from ags_platform import Platform, running
    from lti_launch import lti_course, public_pem, tool_key
    from service_helpers import ROOT

    with running(Platform(client_id="grader-tool", key_id="tool-key-1",
                          public_key=public_pem(tool_key(tmp_path)))) as platform:
        course = lti_course(tmp_path / "course", platform, tmp_path / "tool.pem",
                            deadline=(datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    shutil.move(tmp_path / "tool.pem", course / "tool.pem")
    lms = course / "lms.toml"
    lms.write_text(lms.read_text().replace(f'"{tmp_path / "tool.pem"}"', '"tool.pem"'))
    shutil.copytree(ROOT / "exercises", course / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace(f'exercises = "{ROOT / "exercises"}"', 'exercises = "exercises"'))
    issue_tokens(course)
    Server(course, workers=0).start().stop()  # the store, and the course secret it makes at its first start
    assert grade("store", "backup", "--course", str(course), str(tmp_path / "backup.db")).returncode == 0
    restored = tmp_path / "restored"
    restored.mkdir()
    for name in ("course.toml", "roster.csv"):
        shutil.copy(course / name, restored / name)
    done = grade("store", "restore", "--course", str(restored), str(tmp_path / "backup.db"))
    assert done.returncode == 2, done.stdout + done.stderr
    for named in ("exercises/ (the exercises", "course-secret (the course secret", "lms.toml (the LMS registration"):
        assert named in done.stderr, (named, done.stderr)
    shutil.copy(course / "lms.toml", restored / "lms.toml")  # now the key it names can be named too
    done = grade("store", "restore", "--course", str(restored), str(tmp_path / "backup.db"))
    for named in ("exercises/ (the exercises", "course-secret (the course secret", "tool.pem (the LTI tool's"):
        assert named in done.stderr, (named, done.stderr)
    assert not (restored / "server").exists()  # nothing was touched
    for name in ("exercises", "course-secret", "tool.pem"):
        (shutil.copytree if (course / name).is_dir() else shutil.copy)(course / name, restored / name)
    done = grade("store", "restore", "--course", str(restored), str(tmp_path / "backup.db"))
    assert done.returncode == 0 and "restored" in done.stdout, done.stdout + done.stderr
