"""The report a student sees is the one that counts, on a real `grade serve` with its
worker and the real `grade submit`: the seed's token it was graded with (never "seed 0"), the late policy's score on
the report, the page and the client's output alike, labels that say what counts after the deadline, a default that
counts late work 0, a deadline moved in course.toml without a restart; and before the deadline, nothing of the hidden
run: a file that trips the guard only in a hidden check's code shape gets its twin's view, byte for byte."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import SAMPLES, Server, course_folder, grade, instructor_token, issue_tokens, serving

from grader.judge.hidden_runs import HIDDEN_INTEGRITY

pytestmark = pytest.mark.slow
CORRECT = SAMPLES / "node-mul" / "correct_lesson_style.py"
HOSTILE = SAMPLES / "hostile" / "refuses_only_in_the_hidden_shape.py"
#: a server, its students' tokens, and its instructor's
Course = tuple[Server, dict[str, str], str]


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _get(server: Server, token: str, path: str) -> tuple[int, bytes]:
    request = urllib.request.Request(server.url + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _json(server: Server, token: str, path: str) -> dict[str, object]:
    status, body = _get(server, token, path)
    assert status == 200, body
    found: dict[str, object] = json.loads(body)
    return found


def _serving(folder: Path) -> Iterator[Course]:
    """The course's tokens issued, and its server running (with a worker) until the module's tests are done."""
    tokens, prof = issue_tokens(folder), instructor_token(folder)
    with serving(folder) as server:
        yield server, tokens, prof


def _submitted(done: str) -> int:
    return int(re.search(r"Received: submission (\d+)", done).group(1))  # type: ignore[union-attr]


def _set_deadline(course: Path, value: str) -> int:
    """hw1's deadline (the file's first) set to `value`, as an instructor edits course.toml; the line it is on."""
    toml = course / "course.toml"
    lines = toml.read_text().splitlines()
    line = next(n for n, text in enumerate(lines) if text.startswith("deadline = "))
    lines[line] = f"deadline = {value}"
    # whole or not at all, as an editor saves it: a server reading the file mid-write would take a
    # course.toml cut short for an edit (one without hw1, say)
    part = toml.with_suffix(".part")
    part.write_text("\n".join(lines) + "\n")
    part.replace(toml)
    time.sleep(1.2)  # the server looks at course.toml at most twice a second
    return line + 1


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Course]:
    soon = _at(datetime.now(UTC) + timedelta(hours=1))
    # "old": a deadline long past and no late policy (the default), node-mul again under another name
    folder = course_folder(tmp_path_factory.mktemp("counts"), deadline=soon, students=["s1", "s2"], per_day=0,
                           extra='\n[assignments.old]\nexercises = ["node-mul"]\ndeadline = 2023-01-01T00:00:00Z\n')
    yield from _serving(folder)


def test_a_report_names_the_seed_it_was_graded_with(course: Course) -> None:
    server, tokens, _ = course
    right = server.submit(tokens["s1"], str(CORRECT))
    assert right.returncode == 0, right.stdout + right.stderr
    seen = _json(server, tokens["s1"], f"/api/submissions/{_submitted(right.stdout)}")
    report = seen["report"]
    assert isinstance(report, dict) and report["seed"] is None and report["seed_token"] == seen["seed_token"]
    assert f"seed token {seen['seed_token']}" in right.stdout and "seed 0" not in right.stdout
    history = server.submit(tokens["s1"], "--history").stdout
    assert "on the public checks (the hidden checks after the deadline)" in history
    # the gradebook's report.json holds the token, never the seed (the README: reports show the token)
    assert grade("gradebook", "--course", str(server.course), "hw1").returncode == 0
    exported = [json.loads(p.read_text()) for p in (server.course / "server" / "gradebook" / "hw1").glob(
        "students/*/report.json")]
    (graded,) = [r for r in exported if r["submission"]["sha256"]]
    assert graded["seed"] is None and graded["seed_token"] == seen["seed_token"]


def test_years_late_with_the_default_policy_is_refused_and_says_so_at_once(course: Course, tmp_path: Path) -> None:
    """The default policy takes no late work, so the assignment closed at its deadline: a "fixed" file sent
    after it (the hidden results were out) is refused before it is stored, with the rule and what stands."""
    server, tokens, _ = course
    for attempt in range(2):
        late = tmp_path / f"late{attempt}.py"
        late.write_text(CORRECT.read_text() + f"\n# again, {attempt}\n")
        done = server.submit(tokens["s1"], str(late), "--assignment", "old")
        assert done.returncode != 0 and "Received" not in done.stdout, done.stdout + done.stderr
        assert "takes no late work" in done.stderr and "NOT stored" in done.stderr
    # a retry (the first answer lost on the way) is refused the same way: nothing was ever stored
    for _ in range(2):
        retried = urllib.request.Request(server.url + "/api/submissions?assignment=old", method="POST",
                                         data=CORRECT.read_bytes(), headers={
                                             "Authorization": f"Bearer {tokens['s1']}", "Idempotency-Key": "lost"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(retried, timeout=60)
        assert refused.value.code in (403, 409, 410, 422) and b"NOT stored" in refused.value.read()
    status = json.loads(server.submit(tokens["s1"], "--status", "--json").stdout)
    old = next(a for a in status["assignments"] if a["id"] == "old")
    assert old["counted"]["score"] is None and old["closes"] is not None
    history = json.loads(server.submit(tokens["s1"], "--history", "--json").stdout)
    assert not [s for s in history["submissions"] if s["assignment"] == "old"]


def test_a_moved_deadline_applies_at_once_and_the_late_penalty_is_on_every_report(course: Course) -> None:
    server, tokens, _ = course
    # the deadline moves in course.toml, to a moment from now: it applies without a restart (s1 stays on time)
    # far enough ahead that the server reads it before it passes (a deadline already past when read is held
    # for the instructor to confirm), then waited out
    deadline = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=4)
    _set_deadline(server.course, _at(deadline))
    time.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()) + 0.5)
    lated = server.submit(tokens["s2"], str(CORRECT))  # a day late at 25% a day: 7.5 of 10
    assert lated.returncode == 0, lated.stdout + lated.stderr
    assert "1 day(s) late" in lated.stdout and "late: 1 day late: 25% off: it counts 75%" in lated.stdout
    assert "Score: 7.5/10" in lated.stdout and "Counts for hw1: this submission (1 day late: 25% off)" in lated.stdout
    theirs = _submitted(lated.stdout)
    assert _json(server, tokens["s2"], f"/api/submissions/{theirs}")["score"] == 7.5
    status = json.loads(server.submit(tokens["s2"], "--status", "--json").stdout)
    assert status["assignments"][0]["counted"]["score"] == 7.5
    history = server.submit(tokens["s2"], "--history").stdout
    assert "7.5/10, counts (1 day late: 25% off)" in history and "public checks" not in history
    _, page = _get(server, tokens["s2"], f"/me/submissions/{theirs}")
    assert b"7.5/10" in page and b"25% off" in page
    _, listing = _get(server, tokens["s2"], "/me")
    assert b"7.5/10 counts" in listing
    assert "10/10, counts (on time)" in server.submit(tokens["s1"], "--history").stdout  # labels say what counts


def test_a_broken_edit_keeps_the_rules_and_says_where_it_is_wrong(course: Course) -> None:
    server, tokens, prof = course
    toml = (server.course / "course.toml").read_text()
    before = json.loads(server.submit(tokens["s2"], "--status", "--json").stdout)["assignments"][0]["deadline"]
    line = _set_deadline(server.course, "5")
    try:
        status = json.loads(server.submit(tokens["s2"], "--status", "--json").stdout)
        assert status["assignments"][0]["deadline"] == before
        _, page = _get(server, prof, "/instructor")
        assert f"course.toml, line {line}: assignments.hw1.deadline must be a date and time".encode() in page
    finally:
        (server.course / "course.toml").write_text(toml)


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Course]:
    # one seed for the class (as grade batch --seed): the twins' public checks get the same inputs
    folder = course_folder(tmp_path_factory.mktemp("fixed"), deadline=_at(datetime.now(UTC) + timedelta(days=1)),
                           students=["s1"], per_day=0)
    (folder / "course.toml").write_text("seed = 4217\n" + (folder / "course.toml").read_text())
    yield from _serving(folder)


def _twins(tmp_path: Path) -> list[Path]:
    source = HOSTILE.read_text()
    paths = []
    for name, text in (("armed", source), ("disarmed", source.replace("TRIGGER = True\n", "TRIGGER = None\n"))):
        path = tmp_path / name / "work.py"
        path.parent.mkdir()
        path.write_text(text)
        paths.append(path)
    return paths


def test_before_the_deadline_nothing_of_the_hidden_run_reaches_the_student(fixed: Course, tmp_path: Path) -> None:
    server, tokens, prof = fixed
    token = tokens["s1"]
    printed, ids = [], []
    for path in _twins(tmp_path):
        done = server.submit(token, str(path))
        assert done.returncode == 0, done.stdout + done.stderr
        ids.append(_submitted(done.stdout))
        printed.append(done.stdout.split("\n", 3)[3])  # the report, after the receipt's three lines
    # the trigger fires, in the hidden run: the instructor sees its one withheld line
    assert [_json(server, prof, f"/api/submissions/{i}")["report"]["integrity"] for i in ids] == [  # type: ignore[index]
        [HIDDEN_INTEGRITY], []]
    # the student, before the deadline: the same in every format and page
    assert printed[0] == printed[1] and "seed 4217" in printed[0]
    views = []
    for ident in ids:
        found = _json(server, token, f"/api/submissions/{ident}")
        sha = str(found.pop("sha256"))
        found.pop("submission"), found.pop("received_at"), found.pop("seed_token"), found.pop("received_shown")
        _, page = _get(server, token, f"/me/submissions/{ident}")
        views.append((json.dumps(found, sort_keys=True).replace(sha, "SHA"), page.decode().replace(sha, "SHA")))
    assert views[0] == views[1]
    assert '"integrity": []' in views[0][0] and '"seconds": 0.0' in views[0][0]
    history = json.loads(server.submit(token, "--history", "--json").stdout)["submissions"]
    rows = [{k: v for k, v in row.items() if k not in ("submission", "sha256", "received_at")} for row in history]
    assert len(rows) == 2 and rows[0] == rows[1]
