"""What counts, and when, on a real `grade serve` with its worker, the real `grade submit`, and the instructor's
forms posted as the page posts them: late days go where they count most (hw1's late 10/10 does not take the one
late day that hw2's late 10/10 needs: 18, not 10); a deadline set in the past asks first and says what it
releases; an assignment closes, after which an upload is refused and NOT stored, so that a late re-upload cannot
silently wipe an on-time grade; a receipt says what the upload does to what counts; an extension never makes a
deadline earlier; and an edit of course.toml that moves a deadline into the past is held until confirmed."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import (
    ROOT,
    SAMPLES,
    Server,
    call,
    grade,
    instructor_token,
    issue_tokens,
    page_session,
    post_form,
    wait_until,
)

pytestmark = pytest.mark.slow
RIGHT = SAMPLES / "node-mul" / "correct_lesson_style.py"  # 10/10
EIGHT = SAMPLES / "node-mul" / "no_rmul.py"  # 8/10


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _course(folder: Path, assignments: str, students: tuple[str, ...] = ("s1", "s2")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text("id,name,email\n" + "".join(f"{s},Student {s},{s}@example.edu\n"
                                                                    for s in students))
    (folder / "course.toml").write_text(f'''name = "What counts"
exercises = "{ROOT / 'exercises'}"
roster = "roster.csv"
timezone = "Europe/Paris"
late_days = 1
uploads_per_minute = 60
queued_per_student = 0
{assignments}''')
    return folder


@contextlib.contextmanager
def _serving(course: Path, workers: int = 1) -> Iterator[Server]:
    server = Server(course, workers=workers).start()
    try:
        yield server
    finally:
        server.stop()


def _status(server: Server, token: str) -> dict[str, dict[str, object]]:
    found = json.loads(call(server, "/api/status", token)[1])
    return {a["id"]: a for a in found["assignments"]} | {"": found}


def _graded(server: Server, token: str, count: int) -> None:
    def done() -> bool:
        found = json.loads(call(server, "/api/history", token)[1])["submissions"]
        return len(found) >= count and all(s["state"] == "done" for s in found)
    wait_until(done, 300, "the submissions to be graded")


def _deadline(server: Server, session: str, assignment: str, moment: datetime, student: str = "",
              confirm: bool = True) -> tuple[int, str]:
    fields = {"action": "set", "assignment": assignment, "student": student,
              "when": moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")}
    return post_form(server, session, "/instructor/deadlines", fields | ({"confirm": "yes"} if confirm else {}))


def _changes(course: Path) -> list[tuple[object, ...]]:
    """What the pages changed: the audit log and the deadlines over course.toml's."""
    with sqlite3.connect(course / "server" / "course.db") as db:
        return db.execute("SELECT * FROM audit_log").fetchall() + db.execute("SELECT * FROM rule_overrides").fetchall()


def _audit(server: Server, session: str) -> str:
    return call(server, "/instructor/deadlines", headers={"Cookie": f"grader_session={session}"})[1]


FOUR = '''
[assignments.hw1]
exercises = ["node-mul"]
deadline = {far}
late = "late-days"
[assignments.hw2]
exercises = ["node-mul"]
deadline = {far}
late = "late-days"
[assignments.hw3]
exercises = ["node-mul"]
deadline = {far}
counts = "last"
[assignments.hw4]
exercises = ["node-mul"]
deadline = {far}
late = "penalty"
penalty_per_day = 0.25
max_late_days = 3
counts = "last"
'''


def test_late_days_closes_receipts_and_a_deadline_in_the_past(tmp_path: Path) -> None:
    far = _at(datetime.now(UTC) + timedelta(days=30))
    course = _course(tmp_path / "course", FOUR.format(far=far))
    tokens, prof = issue_tokens(course), instructor_token(course)
    with _serving(course) as server:
        s1 = tokens["s1"]
        for assignment, file in (("hw1", EIGHT), ("hw3", RIGHT), ("hw4", RIGHT)):
            done = server.submit(s1, str(file), "--assignment", assignment, "--no-wait")
            assert done.returncode == 0 and "late" not in done.stdout, done.stdout + done.stderr
        _graded(server, s1, 3)
        session = page_session(server, prof)
        before = _changes(course)

        # a deadline set in the past asks first, and says what it releases to how many; nothing changes until then
        hour_ago = datetime.now(UTC) - timedelta(hours=1)
        status, page = _deadline(server, session, "hw1", hour_ago, confirm=False)
        assert status == 200 and "This releases hidden results" in page and "hw1 to 2 students (s1, s2)" in page
        assert "Confirm: release them" in page
        assert _changes(course) == before
        assert _status(server, s1)["hw1"]["hidden_released"] is False
        status, page = _deadline(server, session, "hw1", hour_ago)
        assert status == 200 and "confirmed: it released hw1 to 2 students" in page, page[-1500:]
        assert _status(server, s1)["hw1"]["hidden_released"] is True

        # hw1: a late 10/10 beside the on-time 8/10; the receipt says what it does to what counts
        late = server.submit(s1, str(RIGHT), "--assignment", "hw1", "--no-wait")
        assert late.returncode == 0 and "1 day(s) late" in late.stdout, late.stdout + late.stderr
        assert "counts: Your counted 8/10 (on time) stays unless this one counts more: a late upload that counts " \
               "in full with 1 of your late days" in late.stdout, late.stdout
        _graded(server, s1, 4)
        assert _status(server, s1)["hw1"]["counted"]["score"] == 10.0  # the day is best spent on it, for now

        # hw2: its own late 10/10, which needs the one late day more than hw1 does (2 points there, 10 here)
        assert _deadline(server, session, "hw2", hour_ago)[0] == 200
        assert server.submit(s1, str(RIGHT), "--assignment", "hw2", "--no-wait").returncode == 0

        # hw3 takes no late work, so it closed at its deadline: a late re-upload is refused, and NOT stored
        for assignment in ("hw3", "hw4"):
            assert _deadline(server, session, assignment, hour_ago)[0] == 200
        refused = server.submit(s1, str(RIGHT), "--assignment", "hw3")
        assert refused.returncode == 2 and "hw3 closed at" in refused.stderr and "NOT stored" in refused.stderr, \
            refused.stderr
        assert "CE" in refused.stderr.split("closed at", 1)[1][:30]  # the close in the course's zone
        # hw4 takes late work at 25% a day: the re-upload replaces the counted 10/10, and its receipt says so
        replaced = server.submit(s1, str(RIGHT), "--assignment", "hw4", "--no-wait")
        assert replaced.returncode == 0, replaced.stderr
        assert "counts: This replaces your counted 10/10 (on time) with a late upload that counts 75% of what it " \
               "earns" in replaced.stdout, replaced.stdout
        _graded(server, s1, 6)

        counted = _status(server, s1)
        assert counted["hw1"]["counted"]["score"] == 8.0 and counted["hw1"]["counted"]["why"] == "on time"
        assert counted["hw2"]["counted"]["score"] == 10.0 and "1 late day spent" in str(counted["hw2"]["counted"])
        assert counted["hw3"]["counted"]["score"] == 10.0 and counted["hw4"]["counted"]["score"] == 7.5
        assert counted[""]["late_days_left"] == 0
        history = json.loads(call(server, "/api/history", s1)[1])["submissions"]
        assert len(history) == 6 and sum(h["assignment"] == "hw3" for h in history) == 1
        table = call(server, "/instructor/class.csv", headers={"Cookie": f"grader_session={session}"})[1]
        row = next(r for r in csv.DictReader(io.StringIO(table)) if r["student"] == "s1")
        assert [row[a] for a in ("hw1", "hw2", "hw3", "hw4")] == ["8", "10", "10", "7.5"], row
        assert row["late_days_used"] == "1"


ONE = '''
[assignments.hw1]
exercises = ["node-mul"]
deadline = {deadline}
'''


def _edit(toml: Path, old: str, new: str) -> None:
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new))
    stamp = time.time() + 5  # a new mtime even where the file system keeps whole seconds
    os.utime(toml, (stamp, stamp))


def test_an_extension_never_makes_a_deadline_earlier(tmp_path: Path) -> None:
    """The page gives s2 a few seconds more; then the class's deadline moves days later, in course.toml and from
    the page. s2's own deadline is the later of the two: they are on time, and their hidden results stay hidden."""
    deadline = _at(datetime.now(UTC) + timedelta(hours=1))
    course = _course(tmp_path / "course", ONE.format(deadline=deadline))
    tokens, prof = issue_tokens(course), instructor_token(course)
    with _serving(course, workers=0) as server:
        session = page_session(server, prof)
        soon = datetime.now(UTC) + timedelta(seconds=3)
        assert _deadline(server, session, "hw1", soon, student="s2", confirm=False)[0] == 200
        later = datetime.now(UTC) + timedelta(days=3)
        _edit(course / "course.toml", f"deadline = {deadline}", f"deadline = {_at(later)}")
        wait_until(lambda: _status(server, tokens["s1"])["hw1"]["deadline"] == int(later.timestamp()), 30,
                   "course.toml's new deadline")
        time.sleep(max(0.0, soon.timestamp() + 1 - time.time()))  # the extension has passed
        mine = _status(server, tokens["s2"])["hw1"]
        assert mine["deadline"] == int(later.timestamp()) and mine["extended"] is False, mine
        assert mine["hidden_released"] is False
        upload = server.submit(tokens["s2"], str(RIGHT), "--no-wait")
        assert upload.returncode == 0 and "late" not in upload.stdout, upload.stdout + upload.stderr
        page = _audit(server, session)
        assert "not after the class&#x27;s deadline, which holds" in page or \
            "not after the class's deadline, which holds" in page
        # from the page, further still: s2 follows the class
        further = datetime.now(UTC) + timedelta(days=4)
        assert _deadline(server, session, "hw1", further, confirm=False)[0] == 200
        assert _status(server, tokens["s2"])["hw1"]["deadline"] == int(further.timestamp())


def test_a_deadline_moved_into_the_past_in_course_toml_waits_for_a_confirmation(tmp_path: Path) -> None:
    """A typo in course.toml (a deadline in the past) is held: the rules in force stay, and the instructor's pages
    say what it would release to how many students, until an instructor confirms it there."""
    deadline = _at(datetime.now(UTC) + timedelta(days=1))
    course = _course(tmp_path / "course", ONE.format(deadline=deadline))
    tokens, prof = issue_tokens(course), instructor_token(course)
    with _serving(course, workers=0) as server:
        session = page_session(server, prof)
        typo = datetime.now(UTC) - timedelta(hours=1)
        _edit(course / "course.toml", f"deadline = {deadline}", f"deadline = {_at(typo)}")
        cookie = {"Cookie": f"grader_session={session}"}
        wait_until(lambda: "waits for you" in call(server, "/instructor/deadlines", headers=cookie)[1], 30,
                   "the held edit on the deadlines page")
        hw1 = _status(server, tokens["s1"])["hw1"]
        assert hw1["deadline"] == int(datetime.fromisoformat(deadline).timestamp()) and not hw1["hidden_released"]
        assert "hw1 to 2 students (s1, s2)" in call(server, "/instructor", headers=cookie)[1]
        page = call(server, "/instructor/deadlines", headers=cookie)[1]
        edit = re.search(r'name="edit" value="([0-9a-f]{64})"', page)
        assert edit is not None
        # the command line reads course.toml from the disk: it refuses to count by the held edit
        held = grade("gradebook", "hw1", "--course", str(course))
        assert held.returncode == 2 and "holds this edit" in held.stderr and "(hw1 to 2 students" in held.stderr, \
            held.stdout + held.stderr
        assert not (course / "server" / "gradebook" / "hw1").exists()
        assert post_form(server, session, "/instructor/deadlines/confirm", {"edit": "0" * 64})[0] == 409
        status, page = post_form(server, session, "/instructor/deadlines/confirm", {"edit": edit[1]})
        assert status == 200 and "confirmed" in page
        wait_until(lambda: _status(server, tokens["s1"])["hw1"]["hidden_released"] is True, 30,
                   "the confirmed edit to apply")
        assert _status(server, tokens["s1"])["hw1"]["deadline"] == int(typo.timestamp())
        confirmed = grade("gradebook", "hw1", "--course", str(course))
        assert confirmed.returncode == 0, confirmed.stderr
    assert grade("course", "check", "--course", str(course)).returncode == 0
