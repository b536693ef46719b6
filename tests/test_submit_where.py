"""Where the real `grade submit` sends a student's token and work: only to the server its owner meant. A course file
planted above a student's working folder (a shared machine's /tmp, another user's project folder) is not read; a
token stays bound to the first server it was sent to; and the command says where it sends."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, course_folder, grade, issue_tokens, serving

pytestmark = pytest.mark.slow
CORRECT = SAMPLES / "node-mul" / "correct_lesson_style.py"
#: the uid a planted file belongs to: another user than the one running the tests
NOBODY = 65534


@contextmanager
def collector() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A server that answers as the course server's API would, and keeps every request's headers: where a
    token sent to the wrong place would end up."""
    seen: list[dict[str, str]] = []

    class Api(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.append({k.lower(): v for k, v in self.headers.items()})
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"submission": 1, "assignment": "hw1", "sha256": "0" * 64, "server_time": "now",
                               "late": False, "days_late": 0, "left_today": None, "replayed": False}).encode()
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, *_: object) -> None:
            return

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}", seen
    finally:
        site.shutdown()
        site.server_close()


@pytest.mark.parametrize("shared", ["a folder anyone may write (/tmp)", "another user's project folder"])
def test_a_course_file_planted_above_the_work_folder_gets_no_token(tmp_path: Path, shared: str) -> None:
    """A classmate plants grade-course.toml naming their own server in a shared folder above a student's working
    folder; the student submits with $AUTOGRADER_TOKEN. Nothing reaches the planted server: the command says there
    is no course server. It found the file, sent the token and the work there, and printed a receipt."""
    with collector() as (evil, seen):
        top = tmp_path / "shared"
        top.mkdir()
        planted = top / "grade-course.toml"
        planted.write_text(f'server = "{evil}"\n')
        if "anyone" in shared:
            top.chmod(0o1777)
        elif os.geteuid() == 0:
            os.chown(top, NOBODY, NOBODY)
            os.chown(planted, NOBODY, NOBODY)
        else:
            pytest.skip("making a folder another user's needs root")
        work = top / "alice"
        work.mkdir(mode=0o755)
        shutil.copy(CORRECT, work / "mine.py")
        done = grade("submit", "mine.py", "--exercise", "node-mul", "--no-wait", cwd=work,
                     env={"AUTOGRADER_SERVER": "", "AUTOGRADER_TOKEN": "agt_0123456789abcdef_secret", "NO_COLOR": "1"})
        assert seen == [], seen
        assert done.returncode != 0 and "no course server" in done.stderr, done.stdout + done.stderr
        assert "Received" not in done.stdout


def test_a_course_file_of_the_students_own_folder_names_the_server(tmp_path: Path) -> None:
    """The pack the student was given, in their own folder: its server is used, and the command says so."""
    with collector() as (server, seen):
        pack = tmp_path / "pack"
        (pack / "work").mkdir(parents=True)
        (pack / "grade-course.toml").write_text(f'server = "{server}"\n')
        shutil.copy(CORRECT, pack / "work" / "mine.py")
        done = grade("submit", "mine.py", "--exercise", "node-mul", "--no-wait", cwd=pack / "work",
                     env={"AUTOGRADER_SERVER": "", "AUTOGRADER_TOKEN": "agt_0123456789abcdef_mine", "NO_COLOR": "1"})
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"Sending to {server} (from {pack / 'grade-course.toml'})" in done.stderr
        assert [h["authorization"] for h in seen] == ["Bearer agt_0123456789abcdef_mine"]
        (pack / "grade-course.toml").chmod(0o666)  # writable by anyone: not read, and named
        refused = grade("submit", "mine.py", "--exercise", "node-mul", "--no-wait", cwd=pack / "work",
                        env={"AUTOGRADER_SERVER": "", "AUTOGRADER_TOKEN": "agt_0123456789abcdef_mine"})
        assert refused.returncode != 0 and "is not yours alone" in refused.stderr and len(seen) == 1


def test_a_token_stays_bound_to_the_first_server_it_was_sent_to(tmp_path: Path) -> None:
    """A student's token, used with their course's server, is then pointed at another by $AUTOGRADER_SERVER (a
    variable or a course file someone changed): refused, nothing sent, until the student says --new-server. It
    went wherever it was pointed."""
    deadline = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    course = course_folder(tmp_path / "course", deadline=deadline, students=["s1"])
    token = issue_tokens(course)["s1"]
    with serving(course, workers=0) as real, collector() as (other, seen):
        done = real.submit(token, "--status")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"Sending to {real.url} (from $AUTOGRADER_SERVER)" in done.stderr
        moved = grade("submit", "--status", env={"AUTOGRADER_SERVER": other, "AUTOGRADER_TOKEN": token})
        assert moved.returncode != 0 and f"first sent to {real.url}" in moved.stderr and seen == [], moved.stderr
        asked = grade("submit", "--status", "--new-server", env={"AUTOGRADER_SERVER": other,
                                                                  "AUTOGRADER_TOKEN": token})
        assert [h["authorization"] for h in seen] == [f"Bearer {token}"], asked.stderr
        assert real.submit(token, "--status").returncode != 0  # bound to the new one now, until asked again
