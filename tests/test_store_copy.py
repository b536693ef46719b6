"""`grade store copy --to postgresql://...`: a course run on SQLite moves to a real PostgreSQL with
every row of every table, and its students keep their tokens: after the copy, a real `grade serve` on the
PostgreSQL store serves each old submission to its student through the old token, a new upload gets a new id,
a revoked token stays revoked, and the instructor's token still works."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, Server, course_folder, grade, instructor_token, issue_tokens, postgres, wait_until
from sqlalchemy import select

from grader.service.config import sqlite_url
from grader.service.db import schema
from grader.service.db.store import open_store, reading

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"


def _get(url: str, token: str) -> dict[str, object]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.loads(response.read()))


def _everything(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the schema, in key order."""
    engine = open_store(url, migrate_now=False)
    try:
        with reading(engine) as db:
            return {t.name: [tuple(row) for row in db.execute(select(t).order_by(*t.primary_key.columns))]
                    for t in schema.metadata.sorted_tables}
    finally:
        engine.dispose()


def test_a_sqlite_course_moves_to_postgresql_and_its_students_keep_their_tokens(tmp_path: Path) -> None:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = course_folder(tmp_path / "course", deadline=deadline, students=["c0", "c1", "c2"], per_day=0)
    tokens, prof = issue_tokens(course), instructor_token(course)
    server = Server(course, workers=1).start()
    try:
        for student in tokens:
            for sample in ("correct_lesson_style.py", "swapped_slopes.py"):
                done = server.submit(tokens[student], str(NODE_MUL / sample))
                assert "Received" in done.stdout, done.stdout + done.stderr
        with postgres() as pg:
            refused = grade("store", "copy", "--course", str(course), "--to", pg.url)
            assert refused.returncode == 2 and "in use" in refused.stderr  # uploads would arrive after the copy
            server.stop()
            assert grade("tokens", "--course", str(course), "--revoke", "c2").returncode == 0
            done = grade("store", "copy", "--course", str(course), "--to", pg.url)
            assert done.returncode == 0, done.stderr
            assert "submissions: 6 row(s)" in done.stderr and "database = " in done.stdout
            before = _everything(sqlite_url(course / "server" / "course.db"))
            assert _everything(pg.url) == before and len(before["results"]) == 6 and before["tokens"]
            assert pg.psql("SELECT version_num FROM alembic_version") == \
                _sqlite_version(course / "server" / "course.db")
            again = grade("store", "copy", "--course", str(course), "--to", pg.url)
            assert again.returncode == 2 and "not empty" in again.stderr

            moved = Server(course, workers=1, env={"AUTOGRADER_DATABASE": pg.url}).start()
            try:
                history = _get(f"{moved.url}/api/history", tokens["c0"])["submissions"]
                assert sorted(s["submission"] for s in history) == sorted(  # type: ignore[attr-defined]
                    row[0] for row in before["submissions"] if row[1] == "c0")
                done = moved.submit(tokens["c1"], "--new-server", str(NODE_MUL / "correct_lesson_style.py"))
                assert "Received: submission 7 " in done.stdout, done.stdout
                assert "Score: 9/9 on the public checks" in done.stdout
                with pytest.raises(urllib.error.HTTPError) as revoked:
                    _get(f"{moved.url}/api/status", tokens["c2"])
                assert revoked.value.code == 401
                revoked.value.close()
                assert _get(f"{moved.url}/api/history?student=c1", prof)["student"] == "c1"
                wait_until(lambda: pg.psql("SELECT count(*) FROM results") == "7", 60, "the new upload graded")
            finally:
                moved.stop()
    finally:
        server.stop()


def _sqlite_version(path: Path) -> str:
    import sqlite3

    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT version_num FROM alembic_version").fetchone()[0])
