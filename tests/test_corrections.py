"""An instructor's corrections of what counts, from the student's page of a real `grade serve` (SQLite and
PostgreSQL): a score set by hand with its reason, the submission chosen to count, an assignment excused, and one
given back to the rules. Each is refused when it is wrong, kept in the store, in the audit log, shown to the
student (`grade submit --status`), in the class table, and in the gradebook `grade gradebook` writes from the store
in a process of its own."""

from __future__ import annotations

import contextlib
import csv
import io
import json
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
    postgres,
    wait_until,
)

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"
STUDENTS = ("s1", "s2", "s3", "s4")


def _course(folder: Path, database: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text("id,name,email\n" + "".join(f"{s},Student {s},{s}@example.edu\n"
                                                                    for s in STUDENTS))
    deadline = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    (folder / "course.toml").write_text(f'''name = "Corrections"
exercises = "{ROOT / 'exercises'}"
roster = "roster.csv"
uploads_per_minute = 60
queued_per_student = 0
{f'database = "{database}"' if database else ""}

[assignments.hw1]
exercises = ["node-mul"]
deadline = {deadline}
late = "penalty"
penalty_per_day = 0.25
''')
    return folder


def _history(server: Server, token: str) -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(call(server, "/api/history", token)[1])["submissions"]
    return found


def _counted(server: Server, token: str) -> dict[str, object]:
    found: dict[str, object] = json.loads(call(server, "/api/status", token)[1])["assignments"][0]["counted"]
    return found


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_corrections_from_the_page_count_everywhere(tmp_path: Path, store: str) -> None:
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres()).url if store == "postgresql" else ""
        course = _course(tmp_path / "course", database)
        tokens, prof = issue_tokens(course), instructor_token(course)
        server = Server(course, workers=1).start()
        stack.callback(server.stop)
        for student, file in (("s1", "correct_lesson_style"), ("s2", "overwrite"), ("s4", "no_rmul"),
                              ("s4", "correct_lesson_style")):
            assert server.submit(tokens[student], str(NODE_MUL / f"{file}.py"), "--no-wait").returncode == 0
        for student in ("s1", "s2", "s4"):
            wait_until(lambda s=student: all(h["state"] == "done" for h in _history(server, tokens[s])), 300,
                       f"{student}'s submissions to be graded")
        session = page_session(server, prof)
        past = (datetime.now(UTC) - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%S+00:00")
        assert post_form(server, session, "/instructor/deadlines", {"action": "set", "assignment": "hw1",
                                                                     "student": "", "when": past,
                                                                     "confirm": "yes"})[0] == 200
        eight = next(h["submission"] for h in _history(server, tokens["s4"]) if h["filename"] == "no_rmul.py")
        theirs = _history(server, tokens["s2"])[0]["submission"]

        def fix(student: str, kind: str, **more: str) -> tuple[int, str]:
            return post_form(server, session, "/instructor/corrections",
                             {"student": student, "assignment": "hw1", "kind": kind, **more})

        # what is wrong is refused, and says why
        for student, kind, more, said in (
                ("s1", "score", {"score": "11", "reason": "x"}, "0 to 10 points"),
                ("s2", "score", {"score": "7"}, "Say why"),
                ("s1", "submission", {"submission": str(theirs)}, "is not one of s1"),
                ("s3", "excused", {}, "Say why"),
                ("nobody", "excused", {"reason": "x"}, "no student")):
            status, page = fix(student, kind, **more)
            assert status == 422 and said in page, (student, kind, status, page[-800:])
        student_session = page_session(server, tokens["s1"])
        assert post_form(server, student_session, "/instructor/corrections",
                         {"student": "s1", "assignment": "hw1", "kind": "score", "score": "10",
                          "reason": "mine"})[0] == 403

        status, page = fix("s2", "score", score="7", reason="graded by hand: the tolerance was too tight")
        assert status == 200 and "score of hw1 for s2" in page and "score 7/10" in page, page[-1500:]
        assert fix("s3", "excused", reason="medical leave")[0] == 200
        assert fix("s4", "submission", submission=str(eight), reason="the later file is a copy")[0] == 200

        # the student reads it (their status, the API), before and after the rules would say
        s2 = _counted(server, tokens["s2"])
        assert s2["score"] == 7.0 and s2["why"] == "set by your instructor: graded by hand: the tolerance was too tight"
        s3 = _counted(server, tokens["s3"])
        assert s3["excused"] is True and "medical leave" in str(s3["why"])
        s4 = _counted(server, tokens["s4"])
        assert s4["score"] == 8.0 and s4["submission"] == eight and "the later file is a copy" in str(s4["why"])
        printed = server.submit(tokens["s3"], "--status")
        assert "counts excused (excused by your instructor: medical leave)" in printed.stdout, printed.stdout

        # the class table and its CSV
        cookie = {"Cookie": f"grader_session={session}"}
        table = {r["student"]: r["hw1"] for r in csv.DictReader(io.StringIO(
            call(server, "/instructor/class.csv", headers=cookie)[1]))}
        assert table == {"s1": "10", "s2": "7", "s3": "EX", "s4": "8"}, table
        page = call(server, "/instructor/students/s2", headers=cookie)[1]
        assert "graded by hand: the tolerance was too tight" in page and 'id="corrections"' in page

        # the gradebook, written from the store by a process of its own, as the LMS takes it
        done = grade("gradebook", "hw1", "--course", str(course))
        assert done.returncode == 0, done.stderr
        book = (course / "server" / "gradebook" / "hw1" / "gradebook.csv").read_text().splitlines()
        cells = {line.split(",")[1]: line.split(",")[-1] for line in book[2:]}
        assert cells == {"s1": "10", "s2": "7", "s3": "EX", "s4": "8"}, book
        score = json.loads((course / "server" / "gradebook" / "hw1" / "students" / "s3" / "lti-score.json")
                           .read_text())
        assert "scoreGiven" not in score and "excused" in score["comment"], score

        # back to the rules: s2's own 3/10 counts again
        assert fix("s2", "clear")[0] == 200
        assert _counted(server, tokens["s2"])["score"] == 3.0
        log = call(server, "/instructor/deadlines", headers=cookie)[1]
        for action in ("score", "excuse", "choose", "clear"):
            assert f"<td>{action}</td>" in log, action
