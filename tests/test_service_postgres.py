"""The course server on a real PostgreSQL (started by the fixture, one for the module) with `grade worker`s on their
own: each its own process, scratch folder, zygotes and cache, talking to PostgreSQL over loopback
only. Mid-surge one is killed with -9, one more is added and one removed: every submission is graded exactly once,
none is lost, and the instructor page shows each worker. And a store that turns read-only fails uploads loudly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import (
    SAMPLES,
    Postgres,
    Server,
    course_folder,
    instructor_token,
    issue_tokens,
    postgres,
    wait_until,
)

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"
FILES = ["correct_lesson_style.py", "swapped_slopes.py", "overwrite.py", "no_rmul.py", "infinite_loop.py",
         "os_exit.py"]


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres() as started:
        yield started


@pytest.fixture(scope="module")
def course(pg: Postgres, tmp_path_factory: pytest.TempPathFactory) -> Path:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = course_folder(tmp_path_factory.mktemp("pgcourse"), deadline=deadline,
                           students=[f"p{i}" for i in range(8)], per_day=0, uploads_per_minute=0,
                           extra="")
    with (folder / "course.toml").open("r+") as toml:
        text = toml.read()
        toml.seek(0)
        toml.write(f'database = "{pg.url}"\n' + text)
    return folder


@pytest.fixture(scope="module")
def tokens(course: Path) -> dict[str, str]:
    return issue_tokens(course)


def _worker(course: Path, name: str, tmp: Path) -> subprocess.Popen[str]:
    scratch = tmp / name
    return subprocess.Popen(
        [sys.executable, "-m", "grader", "worker", "--course", str(course), "--name", name, "--lease", "3",
         "--scratch", str(scratch / "scratch")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "AUTOGRADER_CACHE": str(scratch / "cache"), "TMPDIR": str(tmp)}, start_new_session=True)


def _upload(url: str, token: str, body: bytes, key: str) -> int:
    request = urllib.request.Request(url + "/api/submissions?exercise=node-mul", data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Idempotency-Key": key, "X-Filename": "mine.py"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return int(json.loads(response.read())["submission"])


def test_workers_come_and_go_mid_surge_and_each_submission_is_graded_once(
        course: Path, pg: Postgres, tokens: dict[str, str], tmp_path: Path) -> None:
    prof = instructor_token(course)
    workers = {name: _worker(course, name, tmp_path) for name in ("w1", "w2", "w3")}
    server = Server(course, workers=0).start()  # the server grades nothing itself here
    try:
        ids: list[int] = []

        def student(index: int, name: str) -> None:
            for n in range(5):
                body = (NODE_MUL / FILES[(index + n) % len(FILES)]).read_bytes() + f"\n# {name} {n}\n".encode()
                ids.append(_upload(server.url, tokens[name], body, f"{name}-{n}"))

        threads = [threading.Thread(target=student, args=(i, s)) for i, s in enumerate(sorted(tokens))]
        for thread in threads:
            thread.start()
        # kill -9 a worker while it holds a job: frozen first (SIGSTOP), so that the job it holds when asked is
        # still the one it holds when killed (it could finish between the two, and CI once saw no job at all)
        frozen: list[str] = []

        def freeze_w2_holding_a_job() -> bool:
            os.killpg(workers["w2"].pid, signal.SIGSTOP)
            time.sleep(0.3)  # a COMMIT already sent before the stop lands before the question
            held = pg.psql("SELECT id FROM jobs WHERE state = 'running' AND worker = 'w2'")
            if held:
                frozen.append(held)
                return True
            os.killpg(workers["w2"].pid, signal.SIGCONT)
            return False

        wait_until(freeze_w2_holding_a_job, 120, "w2 grading")
        held = frozen[0]
        os.killpg(workers["w2"].pid, signal.SIGKILL)
        workers["w4"] = _worker(course, "w4", tmp_path)  # one added mid-surge
        for thread in threads:
            thread.join()
        workers["w1"].send_signal(signal.SIGTERM)  # one removed mid-surge: it finishes its job, then leaves
        assert workers["w1"].wait(timeout=120) == 0
        wait_until(lambda: pg.psql("SELECT count(*) FROM jobs WHERE state <> 'done'") == "0", 300, "the queue drained")
        assert len(ids) == 40 and len(set(ids)) == 40
        per = pg.psql("SELECT s.id, count(DISTINCT j.id), count(r.job_id) FROM submissions s JOIN jobs j ON "
                      "j.submission_id = s.id LEFT JOIN results r ON r.job_id = j.id GROUP BY s.id")
        counts = {int(a): (int(b), int(c)) for a, b, c in (line.split("|") for line in per.splitlines())}
        assert set(counts) == set(ids) and all(v == (1, 1) for v in counts.values())  # one job, one result each
        assert pg.psql(f"SELECT attempts FROM jobs WHERE id = {held}") == "2"
        assert pg.psql(f"SELECT worker FROM results WHERE job_id = {held}") != "w2"
        assert pg.psql("SELECT count(*) FROM results WHERE outcome = 'grader-error'") == "0"
        graded = dict(line.split("|") for line in pg.psql(
            "SELECT worker, count(*) FROM results GROUP BY worker").splitlines())
        assert {"w1", "w3", "w4"} <= set(graded)
        page = _instructor_page(server, prof)
        for name in ("w1", "w2", "w3", "w4"):
            assert f"<td>{name}</td>" in page
        assert "stopped" in page and " cores" in page
    finally:
        server.stop()
        for process in workers.values():
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=60)
            assert process.stdout is not None
            process.stdout.close()


def _instructor_page(server: Server, token: str) -> str:
    link = server.submit(token, "--login").stdout.split()[-1]
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(link, timeout=60) as response:
        assert b"Sign in as" in response.read()
    signing = urllib.request.Request(link, data=b"", method="POST", headers={"Origin": server.url})
    with opener.open(signing, timeout=60) as response:  # the link's page's form, as the browser posts it
        return str(response.read().decode())


def test_a_store_turned_read_only_fails_uploads_loudly(course: Path, pg: Postgres, tokens: dict[str, str]) -> None:
    server = Server(course, workers=0).start()
    before = pg.psql("SELECT count(*) FROM submissions")
    try:
        pg.psql("ALTER DATABASE course SET default_transaction_read_only = on")
        pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'course' AND "
                "pid <> pg_backend_pid()")
        done = server.submit(sorted(tokens.values())[0], str(NODE_MUL / "overwrite.py"), "--no-wait")
        assert done.returncode == 2 and "NOT stored" in done.stderr and "read-only" in done.stderr, done.stderr
        assert "Received" not in done.stdout
    finally:
        pg.psql("ALTER DATABASE course SET default_transaction_read_only = off", database="postgres")
    try:
        pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'course' AND "
                "pid <> pg_backend_pid()", database="postgres")
        assert pg.psql("SELECT count(*) FROM submissions") == before
        again = server.submit(sorted(tokens.values())[0], str(NODE_MUL / "overwrite.py"), "--no-wait")
        assert again.returncode == 0 and again.stdout.startswith("Received"), again.stderr
    finally:
        server.stop()
