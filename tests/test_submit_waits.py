"""A rate-limited `grade submit` says that it waits, and how long, before it waits: the real client
against a real `grade serve` on loopback whose course takes one upload a minute per student."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, course_folder, issue_tokens, serving

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
