"""A rate-limited `grade submit` says that it waits, and how long, before it waits: the real client
against a real `grade serve` on loopback whose course takes one upload a minute per student."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, course_folder, issue_tokens, serving

from grader.service.access.limits import IN_FLIGHT

pytestmark = pytest.mark.slow
LATER = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_rate_limited_submit_says_it_waits_and_how_long(tmp_path: Path) -> None:
    course = course_folder(
        tmp_path / "course", deadline=LATER, students=["s1"], uploads_per_minute=1
    )
    token = issue_tokens(course)["s1"]
    work = str(SAMPLES / "node-mul" / "correct_lesson_style.py")
    with serving(course, workers=0) as server:
        first = server.submit(token, work, "--no-wait")
        assert first.returncode == 0, first.stdout + first.stderr
        env = {
            **os.environ,
            "AUTOGRADER_SERVER": server.url,
            "AUTOGRADER_TOKEN": token,
            "NO_COLOR": "1",
        }
        started = time.monotonic()
        second = subprocess.Popen(
            [sys.executable, "-m", "grader", "submit", work, "--no-wait"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert second.stderr is not None
            # said before the wait, not after it (after the line naming where the work goes)
            line = second.stderr.readline()
            while line.startswith("Sending to") or not line.strip():
                line = second.stderr.readline()
            said = time.monotonic() - started
        finally:
            second.terminate()
            second.communicate(timeout=30)
    found = re.search(
        r"too many uploads: try again in \d+ s: waiting (\d+) s, then trying again \(1 of 5\)", line
    )
    assert found is not None, line
    assert 1 <= int(found.group(1)) <= 61 and said < int(found.group(1)), (line, said)


def _status(server_url: str, token: str) -> int:
    request = urllib.request.Request(server_url + "/api/status", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_wait_whose_client_has_gone_gives_its_place_back(tmp_path: Path) -> None:
    """`grade submit` waits for its report with a long poll, which holds one of its student's places in flight.
    A client stopped mid-wait (Ctrl-C, a dropped link) leaves nobody to answer: its places come back within
    a second or two, not when its wait of up to a minute ends."""
    course = course_folder(tmp_path / "course", deadline=LATER, students=["s1"])
    token = issue_tokens(course)["s1"]
    work = str(SAMPLES / "node-mul" / "correct_lesson_style.py")
    with serving(course, workers=0) as server:  # no worker: the submission stays queued, each wait runs its time
        sent = server.submit(token, work, "--no-wait")
        ident = re.search(r"Received: submission (\d+)", sent.stdout)
        assert ident is not None, sent.stdout + sent.stderr
        host, port = server.url.removeprefix("http://").split(":")
        waits = []
        for _ in range(IN_FLIGHT):
            wait = socket.create_connection((host, int(port)))
            wait.sendall(f"GET /api/submissions/{ident.group(1)}?wait=55 HTTP/1.1\r\nHost: {host}\r\n"
                         f"Authorization: Bearer {token}\r\n\r\n".encode())
            waits.append(wait)
        for _ in range(300):  # until the server holds every wait
            if _status(server.url, token) == 429:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the waits never held the student's places")
        for wait in waits:
            wait.close()
        gone = time.monotonic()
        while _status(server.url, token) == 429:
            assert time.monotonic() - gone < 30, "the places of waits whose clients left were still held"
            time.sleep(0.2)
