"""A fair share of the workers, on SQLite and PostgreSQL: a real
`grade serve` with no workers of its own, uploads by the real `grade submit`, and the queue's own claims and
results, so that the order of grading is the test's to read. One student's backlog waits behind the others' next
uploads, an instructor's regrade behind every upload; a student's share of the queue is capped (429, Retry-After,
nothing stored); a job whose worker died is given up after MAX_ATTEMPTS with a report its student reads; a waiting
`grade submit` gets a report whose result landed after a later job's."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, Server, course_folder, grade, instructor_token, issue_tokens, postgres
from sqlalchemy import Engine, func, select, update

from grader.service import client
from grader.service.config import DEFAULT_PER_DAY, DEFAULT_QUEUED, load_course
from grader.service.db import schema
from grader.service.db.store import open_store, writing
from grader.service.work import queue

pytestmark = pytest.mark.slow
FILE = SAMPLES / "node-mul" / "correct_lesson_style.py"


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


@pytest.fixture(params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Server, Engine, dict[str, str]]]:
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = course_folder(tmp_path / "course", deadline=deadline, students=["h", "o", "p"], per_day=0,
                           uploads_per_minute=0, queued_per_student=3)
    with postgres() if request.param == "postgresql" else _nothing() as pg:
        if pg is not None:
            toml = folder / "course.toml"
            toml.write_text(f'database = "{pg.url}"\n' + toml.read_text())
        server = Server(folder, workers=0).start()  # the test claims: the order is what it reads
        engine = open_store(load_course(folder).database)
        try:
            tokens = issue_tokens(folder)
            tokens["prof"] = instructor_token(folder)
            yield server, engine, tokens
        finally:
            engine.dispose()
            server.stop()


def _upload(server: Server, token: str) -> int:
    done = server.submit(token, str(FILE), "--no-wait", env={"AUTOGRADER_SUBMIT_RETRIES": "0"})
    assert done.returncode == 0, done.stdout + done.stderr
    return int(done.stdout.split("submission ")[1].split()[0])


def _owner(engine: Engine, claimed: queue.Claimed) -> tuple[str, int]:
    s, j = schema.submissions.c, schema.jobs.c
    with writing(engine) as db:
        student = db.execute(select(s.student_id).where(s.id == claimed.submission)).scalar_one()
        priority = db.execute(select(j.priority).where(j.id == claimed.job)).scalar_one()
    return student, priority


def _report() -> str:
    done = grade(str(FILE), "--exercise", "node-mul", "--format", "json")
    assert done.stdout.startswith("{"), done.stderr
    return done.stdout


def _finish(engine: Engine, claimed: queue.Claimed, report: str) -> None:
    queue.finish(engine, "test", queue.Result(job=claimed.job, submission=claimed.submission, outcome="graded",
                                              score=1.0, max_score=1.0, public_score=1.0, report=report, error="",
                                              seconds=0.1))


def test_one_students_backlog_waits_behind_the_others_and_a_regrade_behind_all(
        served: tuple[Server, Engine, dict[str, str]]) -> None:
    server, engine, tokens = served
    for _ in range(3):
        _upload(server, tokens["h"])
    # the instructor's regrade of everything, queued before o's and p's uploads, still waits behind them
    assert client.call(client.Settings(server.url, tokens["prof"]), "POST", "/api/regrade", b"")[1]["queued"] == 3
    _upload(server, tokens["o"])
    _upload(server, tokens["p"])
    order = []
    while (claimed := queue.claim(engine, "test", 30)) is not None:
        order.append(_owner(engine, claimed))
        queue.finish(engine, "test", queue.Result(job=claimed.job, submission=claimed.submission, outcome="graded",
                                                  score=0, max_score=0, public_score=0, report="", error="",
                                                  seconds=0))
    # first come first served made o and p wait behind all three of h's; now, behind the one graded first
    assert order[:5] == [("h", 0), ("o", 0), ("p", 0), ("h", 0), ("h", 0)]
    assert [o for o in order[5:]] == [("h", 1)] * 3


def test_a_students_share_of_the_queue_is_capped_and_nothing_refused_is_stored(
        served: tuple[Server, Engine, dict[str, str]]) -> None:
    server, engine, tokens = served
    kept = [_upload(server, tokens["h"]) for _ in range(3)]
    refused = server.submit(tokens["h"], str(FILE), "--no-wait", env={"AUTOGRADER_SUBMIT_RETRIES": "0"})
    assert refused.returncode != 0
    assert "3 submissions waiting to be graded" in refused.stderr and "NOT stored" in refused.stderr
    with pytest.raises(client.ServerRefused):  # the API says 429 with Retry-After (the client tried again, once)
        client.call(client.Settings(server.url, tokens["h"]), "POST", "/api/submissions?exercise=node-mul",
                    FILE.read_bytes(), {"X-Filename": "f.py"}, retries=0)
    _upload(server, tokens["o"])  # another student is not held by h's share
    s = schema.submissions.c
    with writing(engine) as db:
        assert db.execute(select(s.id).where(s.student_id == "h").order_by(s.id)).scalars().all() == kept
    claimed = queue.claim(engine, "test", 30)
    assert claimed is not None and claimed.submission == kept[0]  # graded, or being graded: room for one more
    _upload(server, tokens["h"])


def test_a_student_holds_one_worker_at_a_time_and_the_next_student_takes_the_next(
        served: tuple[Server, Engine, dict[str, str]]) -> None:
    server, engine, tokens = served
    h1, h2 = _upload(server, tokens["h"]), _upload(server, tokens["h"])
    first = queue.claim(engine, "w1", 30)
    assert first is not None and first.submission == h1
    # h's second file waits for h's first, though a worker is free: another worker takes nobody's job of h's
    assert queue.claim(engine, "w2", 30) is None
    o = _upload(server, tokens["o"])
    taken = queue.claim(engine, "w2", 30)
    assert taken is not None and taken.submission == o  # o's upload, queued after h's second, goes first
    _finish(engine, taken, _report())
    assert queue.claim(engine, "w2", 30) is None
    _finish(engine, first, _report())
    again = queue.claim(engine, "w2", 30)
    assert again is not None and again.submission == h2  # h's next, once h's first is done


def test_two_slow_files_hold_one_of_two_workers_and_another_students_report_comes_first(tmp_path: Path) -> None:
    """One student hogging the workers, through a real server and its two workers: one student uploads two files
    that sleep at import (under the time limit); the other student's file, sent after both, is graded while the
    first of them still sleeps, not after it."""
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = course_folder(tmp_path / "course", deadline=deadline, students=["h", "o"], per_day=0,
                           uploads_per_minute=0)
    tokens = issue_tokens(folder)
    slow = tmp_path / "sleeps_at_import.py"  # the sample, sleeping 4 s: room for o's upload, claim and grading
    slow.write_text((SAMPLES / "hostile" / "sleeps_at_import.py").read_text().replace("time.sleep(2)",
                                                                                     "time.sleep(4)"))
    engine = open_store(load_course(folder).database)
    server = Server(folder, workers=2).start()
    try:
        from service_helpers import wait_until

        r = schema.results.c
        held = [_upload_file(server, tokens["h"], slow) for _ in range(2)]
        j = schema.jobs.c

        def running() -> int:
            with writing(engine) as db:
                return int(db.execute(select(func.count()).where(j.state == "running")).scalar_one())

        wait_until(lambda: running() >= 1, 120, "h's first file being graded")
        mine = _upload_file(server, tokens["o"], FILE)
        found = client.wait_for(client.Settings(server.url, tokens["o"]), mine, 120)
        assert found["state"] == "done" and found["score"] == found["max_score"]
        with writing(engine) as db:
            landed = {ident: at for ident, at in db.execute(select(r.submission_id, r.graded_at))}
        assert mine in landed and held[0] not in landed  # o's came while h's first still slept
        for ident in held:
            assert client.wait_for(client.Settings(server.url, tokens["h"]), ident, 120)["state"] == "done"
    finally:
        engine.dispose()
        server.stop()


def _upload_file(server: Server, token: str, path: Path) -> int:
    done = server.submit(token, str(path), "--no-wait", env={"AUTOGRADER_SUBMIT_RETRIES": "0"})
    assert done.returncode == 0, done.stdout + done.stderr
    return int(done.stdout.split("submission ")[1].split()[0])


def test_a_job_that_stops_its_worker_is_given_up_with_a_report_its_student_reads(
        served: tuple[Server, Engine, dict[str, str]]) -> None:
    server, engine, tokens = served
    poison = _upload(server, tokens["h"])
    course = load_course(server.course)
    from grader.service.work.grading import given_up

    for attempt in range(queue.MAX_ATTEMPTS):
        if attempt == 1:
            _upload(server, tokens["o"])
        claimed = queue.claim(engine, "doomed", 30)
        assert claimed is not None
        if attempt >= 1:  # queued again a turn later: o's upload went first
            if claimed.submission != poison:
                assert _owner(engine, claimed)[0] == "o"
                _finish(engine, claimed, _report())
                claimed = queue.claim(engine, "doomed", 30)
                assert claimed is not None
        assert claimed.submission == poison
        j = schema.jobs.c
        with writing(engine) as db:  # its worker died: its lease lapses
            db.execute(update(schema.jobs).where(j.id == claimed.job).values(lease_until=0.0))
        queue.reap(engine, lambda stored: given_up(course, stored))
    assert queue.claim(engine, "next", 30) is None  # never tried again, and never in the way
    found = client.wait_for(client.Settings(server.url, tokens["h"]), poison, 5)
    assert found["state"] == "done" and found["outcome"] == "grader-error"
    problems = " ".join(found["report"]["problems"])
    assert "gave up on this submission" in problems and "not your fault" in problems


def test_a_waiting_submit_gets_a_report_whose_result_landed_after_a_later_jobs(
        served: tuple[Server, Engine, dict[str, str]]) -> None:
    server, engine, tokens = served
    first, _ = _upload(server, tokens["o"]), _upload(server, tokens["p"])
    slow, fast = queue.claim(engine, "w1", 30), queue.claim(engine, "w2", 30)
    assert slow is not None and fast is not None and slow.submission == first
    got: dict[str, dict[str, object]] = {}

    def wait(student: str, submission: int) -> threading.Thread:
        thread = threading.Thread(target=lambda: got.__setitem__(student, client.wait_for(
            client.Settings(server.url, tokens[student]), submission, 55)))
        thread.start()
        return thread

    waiter, other = wait("o", first), wait("p", fast.submission)
    report = _report()
    _finish(engine, fast, report)  # the later job's result lands first, as a faster worker's does
    other.join(timeout=60)  # its waiter woken: the server has seen that later result
    assert got["p"]["state"] == "done"
    _finish(engine, slow, report)
    # the waiter asked to wait 55 s: it used to be woken only when that ran out (the watcher had moved past it)
    waiter.join(timeout=25)
    assert not waiter.is_alive() and got["o"]["state"] == "done"


def test_the_defaults_cap_a_students_day_and_share_of_the_queue(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "course.toml").write_text(f'exercises = "{Path(__file__).parent.parent / "exercises"}"\n'
                                        '[assignments.hw1]\nexercises = ["node-mul"]\n')
    course = load_course(folder)
    assert course.assignments["hw1"].per_day == DEFAULT_PER_DAY == 20
    assert course.queued_per_student == DEFAULT_QUEUED == 5


def test_a_worker_killed_shows_as_lost_and_its_job_where_it_went(tmp_path: Path) -> None:
    import os
    import signal
    import urllib.request

    from service_helpers import wait_until

    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = course_folder(tmp_path / "course", deadline=deadline, students=["h"], per_day=0)
    tokens = issue_tokens(folder)
    prof = instructor_token(folder)
    engine = open_store(load_course(folder).database)
    server = Server(folder, workers=1, lease=3.0).start()  # a heartbeat a second
    try:
        done = server.submit(tokens["h"], str(SAMPLES / "node-mul" / "infinite_loop.py"), "--no-wait")
        assert done.returncode == 0, done.stderr
        w = schema.workers.c

        def holder() -> tuple[str, int] | None:
            with writing(engine) as db:
                row = db.execute(select(w.id, w.pid).where(w.job_id.is_not(None), w.stopped_at.is_(None))).first()
            return None if row is None else (row.id, row.pid)

        wait_until(holder, 120, "a worker saying it grades the job")
        found = holder()
        assert found is not None
        os.kill(found[1], signal.SIGKILL)

        def page() -> str:
            request = urllib.request.Request(server.url + "/instructor", headers={"Authorization": f"Bearer {prof}"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                return str(answer.read().decode())

        def lost() -> bool:
            text = page()
            row = text[text.index(found[0]):].split("</tr>")[0]
            return "lost" in row and any(where in row for where in ("queued again", "being graded by", "given up",
                                                                      "graded by"))

        wait_until(lost, 30, "the killed worker shown as lost, with where its job went")  # it said alive for 60 s
    finally:
        engine.dispose()
        server.stop()
