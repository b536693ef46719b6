"""Bounded reports and per-token concurrency, on a real `grade serve` with its worker and the
real `grade submit`: a 1.3 KB upload returning 150,000 floats is stored and served as kilobytes; its owner asking
for it many times at once holds at most IN_FLIGHT places (the rest are answered 429 with Retry-After), and another
student's upload gets its receipt while that goes on."""

from __future__ import annotations

import json
import re
import select
import socket
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from service_helpers import SAMPLES, Server, course_folder, issue_tokens, serving

from grader.service.access.limits import IN_FLIGHT

pytestmark = pytest.mark.slow
HUGE = SAMPLES / "hostile" / "huge_report_values.py"
CORRECT = SAMPLES / "node-mul" / "correct_lesson_style.py"
#: what the stored report of HUGE may hold; it was 2.4 MB before reports were bounded
CAP = 100_000


def _get(server: Server, token: str, path: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(server.url + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str], int]]:
    """The server, its tokens, and s1's graded HUGE submission."""
    soon = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    folder = course_folder(tmp_path_factory.mktemp("bounded"), deadline=soon, students=["s1", "s2"], per_day=0)
    tokens = issue_tokens(folder)
    with serving(folder) as server:
        done = server.submit(tokens["s1"], str(HUGE), "--assignment", "hw1")
        assert done.returncode == 1, done.stdout + done.stderr  # graded, and failed
        ident = int(re.search(r"Received: submission (\d+)", done.stdout).group(1))  # type: ignore[union-attr]
        assert "0/" in done.stdout, done.stdout
        yield server, tokens, ident


def test_a_huge_values_report_is_stored_and_served_as_kilobytes(course: tuple[Server, dict[str, str], int]) -> None:
    server, tokens, ident = course
    with sqlite3.connect(server.course / "server" / "course.db") as db:
        (stored,) = db.execute("SELECT length(report) FROM results WHERE submission_id = ?", (ident,)).fetchone()
    assert stored < CAP, stored
    status, _, body = _get(server, tokens["s1"], f"/api/submissions/{ident}")
    assert status == 200 and len(body) < CAP, (status, len(body))
    got = [o["got_value"] for e in json.loads(body)["report"]["exercises"] for c in e["checks"]
           for o in c["observations"]]
    assert got and all(g["truncated"] and g["shape"] == [150_000] and g["size"] == 150_000 and
                       g["prefix"][:2] == [0.5, 0.5] for g in got), got[:1]


def _held(server: Server, token: str) -> socket.socket:
    """An upload whose headers arrived and whose body never does: a request in flight until it is closed."""
    host, port = server.url.removeprefix("http://").split(":")
    held = socket.create_connection((host, int(port)))
    held.sendall(f"POST /api/submissions?assignment=hw1 HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
                 f"X-Filename: slow.py\r\nContent-Length: 4000\r\n\r\nx = 1\n".encode())
    return held


def _answers(held: list[socket.socket]) -> list[bytes]:
    """What the server said to each held request, if anything (for a failure's message)."""
    said = []
    for each in held:
        each.settimeout(0.5)
        try:
            said.append(each.recv(300))
        except OSError as exc:
            said.append(repr(exc).encode())
    return said


def test_requests_beyond_the_per_token_limit_get_429_and_others_are_served(
        course: tuple[Server, dict[str, str], int]) -> None:
    server, tokens, _ = course
    held = [_held(server, tokens["s1"]) for _ in range(IN_FLIGHT)]
    try:
        for _ in range(100):  # until the server has read (and authenticated) every held request's headers
            status, headers, body = _get(server, tokens["s1"], "/api/status")
            if status == 429:
                break
            # A held request the server took after one of these asks found the places full and was
            # answered 429 itself (the server authenticates each in its thread pool, in no set order):
            # it holds nothing, so another is sent in its place.
            for place, each in enumerate(held):
                if select.select([each], [], [], 0)[0]:
                    each.close()
                    held[place] = _held(server, tokens["s1"])
            time.sleep(0.1)
        assert status == 429 and headers.get("retry-after") == "1", (status, body, _answers(held))
        assert b"at once" in body
        assert _get(server, tokens["s2"], "/api/status")[0] == 200  # another student's token is not held up
    finally:
        for each in held:
            each.close()
    for _ in range(50):  # the places come back as the held requests end
        if _get(server, tokens["s1"], "/api/status")[0] == 200:
            break
    else:
        raise AssertionError("s1 never got a place back")


def test_another_students_receipt_comes_while_one_floods_its_huge_report(
        course: tuple[Server, dict[str, str], int]) -> None:
    server, tokens, ident = course
    stop = threading.Event()
    answers: Counter[int] = Counter()
    sizes: list[int] = []
    lock = threading.Lock()

    def flood() -> None:
        while not stop.is_set():
            status, _, body = _get(server, tokens["s1"], f"/api/submissions/{ident}")
            with lock:
                answers[status] += 1
                sizes.append(len(body))

    threads = [threading.Thread(target=flood) for _ in range(24)]
    for thread in threads:
        thread.start()
    try:
        done = server.submit(tokens["s2"], str(CORRECT), "--assignment", "hw1", "--no-wait")
        with lock:
            flooding = sum(answers.values())
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert done.returncode == 0 and "Received: submission" in done.stdout, done.stdout + done.stderr
    assert flooding > 0 and not any(thread.is_alive() for thread in threads)
    assert set(answers) <= {200, 429} and answers[200] > 0 and answers[429] > 0, answers  # 24 at once: most refused
    assert max(sizes) < CAP
