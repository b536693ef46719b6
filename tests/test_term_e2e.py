"""Issue 32's "Done when": an instructor runs a whole term from `grade serve`, the pages and an LMS launch, with no
file edit after set-up. One real server on loopback with its grading worker and its SQLite store, the test LMS
platform (tests/ags_platform.py, on a site of its own for Chromium), and headless Chromium for every person:
the students launch from the LMS and upload from the page, the instructor sets a deadline and an extension from
the page, a late file is counted by the late policy, the instructor regrades from the page, the class table
shows the counted scores and exports them, and the scores reach the LMS's gradebook (AGS) from the page."""

from __future__ import annotations

import csv
import hashlib
import io
import re
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from ags_platform import Platform, running
from browser import browsing, person, shots, shots_folder
from lti_launch import USERS, lti_course, public_pem, serving, tool_key
from service_helpers import SAMPLES, grade, wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.slow
RIGHT = SAMPLES / "node-mul" / "correct_lesson_style.py"
ROSTER = ("id,name,email,lti_user_id\ns1,Ann One,s1@example.edu,lti-s1\ns2,Bob Two,s2@example.edu,lti-s2\n"
          "s3,Cat Three,s3@example.edu,lti-s3\n")


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[tuple[Platform, Path]]:
    key_file = tool_key(tmp_path)
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()}, browser_host="lms.test")
    with running(lms) as started:
        yield started, key_file
        assert started.problems == []


def _idle(course: Path) -> bool:
    with sqlite3.connect(course / "server" / "course.db") as db:
        return db.execute("SELECT count(*) FROM jobs WHERE state != 'done'").fetchone()[0] == 0


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_an_instructor_runs_the_term_from_the_pages(platform: tuple[Platform, Path], tmp_path: Path) -> None:
    lms, key_file = platform
    deadline = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = lti_course(tmp_path / "course", lms, key_file, deadline=deadline)
    (course / "roster.csv").write_text(ROSTER)
    assert grade("tokens", "--course", str(course)).returncode == 0
    files = _digest(course)  # set-up ends here: nothing in the course folder is edited from now on
    folder = shots_folder("term-")
    with serving(course, lms, workers=1) as tool, browsing("--host-resolver-rules=MAP lms.test 127.0.0.1") as chrome:
        def launched(user: str) -> Page:
            page = person(chrome).new_page()
            page.goto(f"{lms.browser_base}/launch?user={user}&link=rl-hw1")
            page.wait_for_url(re.compile(re.escape(tool) + "/(instructor|me)"))  # past the launch's own page
            return page

        prof = launched("lti-prof")
        assert prof.url.startswith(f"{tool}/instructor"), prof.url

        def upload(user: str) -> str:
            page = launched(user)
            assert page.url == f"{tool}/me/assignments/hw1", page.url
            if user == "lti-s1":  # the assignment's page, as the LMS's link opens it
                shots(page, folder, "lti-assignment")
            page.set_input_files("input[type=file]", str(RIGHT))
            page.click("form.upload button")
            receipt = str(page.inner_text("body"))
            assert "Received: submission" in receipt, receipt
            if user == "lti-s1":
                shots(page, folder, "lti-receipt")
            return receipt

        assert "on time" in upload("lti-s1")
        # the instructor moves the deadline to now (s1 was in time) and gives s3 two days more, from the page
        prof.goto(f"{tool}/instructor/deadlines")
        row = prof.locator("tr:has(td:text-is('hw1'))").first
        time.sleep(1.1)
        row.locator("input[name=when]").fill(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"))
        row.locator("button:text-is('Set')").click()
        assert "This releases hidden results" in prof.inner_text("h1")  # it asks first: the deadline has passed
        prof.click("button:text-is('Confirm: release them')")
        grant = prof.locator("form:has(button:text-is('Grant'))")
        grant.locator("select[name=student]").select_option("s3")
        grant.locator("input[name=days]").fill("2")
        grant.locator("button").click()
        assert "extension of hw1 for s3" in prof.inner_text(".notice")
        time.sleep(1.1)
        late = upload("lti-s2")
        assert "late" in late and "25% off" in late, late
        assert "on time" in upload("lti-s3")
        wait_until(lambda: _idle(course), 300, "the three submissions to be graded")

        # a regrade of every submission, from the page
        prof.goto(f"{tool}/instructor")
        prof.click("button:text-is('Regrade')")
        assert "3 submission(s) queued" in prof.inner_text(".notice")
        wait_until(lambda: _idle(course), 300, "the regrade")
        with sqlite3.connect(course / "server" / "course.db") as db:
            assert db.execute("SELECT count(*) FROM results").fetchone()[0] == 6

        prof.goto(f"{tool}/instructor?sort=id")
        table = prof.locator("table.class tbody tr")
        cells = {table.nth(i).locator("td").nth(1).inner_text(): table.nth(i).locator("td").nth(3).inner_text()
                 for i in range(table.count())}
        assert cells == {"s1": "10/10", "s2": "7.5/10 late", "s3": "10/10"}, cells
        shots(prof, folder, "term-class")
        with prof.expect_download() as download:
            prof.click("a:text-is('class.csv')")
        exported = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
        assert {r["student"]: r["hw1"] for r in exported} == {"s1": "10", "s2": "7.5", "s3": "10"}

        # the counted scores to the LMS's gradebook, hw1's own column: s3's deadline (an extension) has not
        # passed, so the page asks first, and the instructor sends every score
        prof.select_option("form[action='/instructor/publish'] select", "hw1")
        prof.click("button:text-is('Send the scores to the LMS')")
        assert "has not passed for 1 of 3 students (1 by an extension)" in prof.inner_text("body")
        prof.click("button:has-text('Send all 3')")
        assert "3 score(s) sent" in prof.inner_text(".notice")
        prof.goto(f"{tool}/instructor/deadlines")
        log = prof.inner_text("table >> nth=-1")
        assert all(word in log for word in ("deadline", "extension", "regrade", "publish", "prof"))
    sent = {user: score.get("scoreGiven") for user, score in lms.column("hw1").items()}
    assert sent == {"lti-s1": 10.0, "lti-s2": 7.5, "lti-s3": 10.0}, sent
    after = _digest(course)  # the server wrote its own files (its secret, its store), and edited none of these
    assert {name: after.get(name) for name in files} == files and "course.toml" in files
