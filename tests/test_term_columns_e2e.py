"""A term, end to end, as the rules of what counts and where it lands meet it: two assignments published from the
instructor's page to two LMS columns (the test platform's line items service, as Canvas keeps it), one late
student, one extension, one score set by hand and one student excused. A real `grade serve` on loopback with its
worker and SQLite store, the students' real `grade submit`, the instructor signed in by an LMS launch; every cell
of both LMS columns, of the class table's CSV and of both gradebooks is checked.

    hw1 (node-mul): s1 on time, 10 | s2 a day late, 25% off: 7.5 | s3 after the class's deadline, within their
                    extension: 10 (held back from the LMS until the instructor releases it) | s4 1/10, set by hand: 6
    hw2 (node-add): s1 10 | s2 10 | s3 excused: EX, a score without points (cleared) | s4 10
"""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ags_platform import Platform, running
from lti_launch import USERS, lti_course, public_pem, request, serving, sign_in, tool_key
from service_helpers import SAMPLES, grade, wait_until

pytestmark = pytest.mark.slow
MUL, ADD = SAMPLES / "node-mul", SAMPLES / "node-add"
ROSTER = "id,name,email,lti_user_id\n" + "".join(f"s{i},Student {i},s{i}@example.edu,lti-s{i}\n" for i in range(1, 5))


def _at(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _form(tool: str, session: str, path: str, fields: dict[str, str]) -> tuple[int, str]:
    """A page's form posted as the page posts it; the page it leads to."""
    answer = request(f"{tool}{path}", "POST", fields, {"grader_session": session}, {"Origin": tool})
    if answer.status != 303:
        return answer.status, answer.body
    landed = request(tool + answer.header("location"), cookies={"grader_session": session})
    return landed.status, landed.body


def _notice(page: str) -> str:
    found = re.search(r'<p class="notice">([^<]*)</p>', page)
    assert found is not None, page[-2000:]
    return found.group(1)


def _submit(tool: str, token: str, path: Path, assignment: str) -> str:
    done = grade("submit", str(path), "--assignment", assignment, "--no-wait",
                 env={"AUTOGRADER_SERVER": tool, "AUTOGRADER_TOKEN": token, "NO_COLOR": "1"}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _cells(platform: Platform, assignment: str) -> dict[str, object]:
    return {user: score.get("scoreGiven") for user, score in sorted(platform.column(assignment).items())}


def test_a_term_lands_in_two_columns_with_its_rules(tmp_path: Path) -> None:
    key_file = tool_key(tmp_path)
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()})
    tomorrow = _at(datetime.now(UTC) + timedelta(days=1)).replace("+00:00", "Z")
    hw2 = f'\n[assignments.hw2]\nexercises = ["node-add"]\ndeadline = {tomorrow}\n'
    with running(lms) as platform:
        course = lti_course(tmp_path / "course", platform, key_file, deadline=tomorrow, more=hw2)
        (course / "roster.csv").write_text(ROSTER)
        issued = grade("tokens", "--course", str(course), "--again")
        assert issued.returncode == 0, issued.stderr
        tokens = {line.split(",")[0]: line.split(",")[-1].strip() for line in issued.stdout.splitlines()[1:]}
        with serving(course, platform, workers=1) as tool:
            session, _ = sign_in(tool, platform, "lti-prof")
            # on time: s1 both, s2 and s4 hw2, s4 hw1 (a bug: 1 of 10)
            for student, file, assignment in (("s1", MUL, "hw1"), ("s1", ADD, "hw2"), ("s2", ADD, "hw2"),
                                              ("s4", ADD, "hw2")):
                _submit(tool, tokens[student], file / "correct_lesson_style.py", assignment)
            _submit(tool, tokens["s4"], MUL / "swapped_slopes.py", "hw1")

            # s3 gets two days more on hw1; then hw1's deadline moves to an hour ago, which asks first
            grant = {"action": "set", "assignment": "hw1", "student": "s3", "days": "2"}
            assert "extension of hw1 for s3" in _notice(_form(tool, session, "/instructor/deadlines", grant)[1])
            past = {"action": "set", "assignment": "hw1", "student": "",
                    "when": _at(datetime.now(UTC) - timedelta(hours=1))}
            status, page = _form(tool, session, "/instructor/deadlines", past)
            assert status == 200 and "hw1 to 3 students (s1, s2, s4)" in page, page[-2000:]
            assert "deadline of hw1" in _notice(_form(tool, session, "/instructor/deadlines",
                                                      past | {"confirm": "yes"})[1])
            late = _submit(tool, tokens["s2"], MUL / "correct_lesson_style.py", "hw1")
            assert "1 day(s) late" in late and "counts 75% of what it earns" in late, late
            within = _submit(tool, tokens["s3"], MUL / "correct_lesson_style.py", "hw1")
            assert "late" not in within, within

            # hw2's deadline passes; the instructor sets s4's hw1 by hand and excuses s3 from hw2
            assert _form(tool, session, "/instructor/deadlines",
                         {**past, "assignment": "hw2", "confirm": "yes"})[0] == 200
            for fields in ({"student": "s4", "assignment": "hw1", "kind": "score", "score": "6",
                            "reason": "graded by hand: a tolerance too tight for their engine"},
                           {"student": "s3", "assignment": "hw2", "kind": "excused", "reason": "medical leave"}):
                status, page = _form(tool, session, "/instructor/corrections", fields)
                assert status == 200 and 'class="notice"' in page, page[-1500:]
            wait_until(lambda: _idle(course), 300, "every submission to be graded")

            # hw1 before s3's own deadline: the page asks, and by default holds s3 back
            status, page = _form(tool, session, "/instructor/publish", {"assignment": "hw1"})
            assert "has not passed for 1 of 4 students (1 by an extension)" in page, page[-1500:]
            said = _notice(_form(tool, session, "/instructor/publish", {"assignment": "hw1", "confirm": "passed"})[1])
            assert "3 score(s) sent" in said and "1 held back" in said, said
            assert _cells(platform, "hw1") == {"lti-s1": 10.0, "lti-s2": 7.5, "lti-s4": 6.0}
            said = _notice(_form(tool, session, "/instructor/publish", {"assignment": "hw1", "confirm": "all"})[1])
            assert "1 score(s) sent" in said and "3 unchanged" in said, said
            said = _notice(_form(tool, session, "/instructor/publish", {"assignment": "hw2"})[1])
            assert "4 score(s) sent" in said, said
            table = request(f"{tool}/instructor/class.csv", cookies={"grader_session": session}).body
    assert platform.problems == []
    # every cell of both columns: each assignment in its own, the rules applied
    assert _cells(platform, "hw1") == {"lti-s1": 10.0, "lti-s2": 7.5, "lti-s3": 10.0, "lti-s4": 6.0}
    assert _cells(platform, "hw2") == {"lti-s1": 10.0, "lti-s2": 10.0, "lti-s3": None, "lti-s4": 10.0}
    excused = platform.column("hw2")["lti-s3"]
    assert "excused" in excused["comment"] and "scoreMaximum" not in excused
    assert platform.gradebook.get(42) is None  # the column the instructor made by hand is nobody's
    # every cell of the class table, and of each assignment's gradebook
    rows = {r["student"]: (r["hw1"], r["hw2"], r["late_days_used"]) for r in csv.DictReader(io.StringIO(table))}
    assert rows == {"s1": ("10", "10", "0"), "s2": ("7.5", "10", "0"), "s3": ("10", "EX", "0"),
                    "s4": ("6", "10", "0")}, rows
    for assignment, cells in (("hw1", {"s1": "10", "s2": "7.5", "s3": "10", "s4": "6"}),
                              ("hw2", {"s1": "10", "s2": "10", "s3": "EX", "s4": "10"})):
        book = (course / "server" / "gradebook" / assignment / "gradebook.csv").read_text().splitlines()
        assert book[0].endswith(f",{assignment}") and book[1].endswith(",10"), book
        assert {line.split(",")[1]: line.split(",")[-1] for line in book[2:]} == cells, book
    with sqlite3.connect(course / "server" / "course.db") as db:
        actions = [r[0] for r in db.execute("SELECT action FROM audit_log ORDER BY id")]
    assert actions == ["extension", "deadline", "deadline", "score", "excuse", "publish", "publish", "publish"]


def _idle(course: Path) -> bool:
    with sqlite3.connect(course / "server" / "course.db") as db:
        return db.execute("SELECT count(*) FROM jobs WHERE state != 'done'").fetchone()[0] == 0
