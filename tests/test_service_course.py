"""A whole course on the course server, as its people meet it: `grade tokens`, several students running the real
`grade submit` against a real `grade serve` on SQLite (right, buggy and bad files, over the daily limit, retried,
another's submission, a revoked token), then the deadline passes (the server restarts on the new course.toml), a
late submission is stored and marked, hidden results are released, the counted scores are exported as the batch's
gradebook and published to the test AGS platform, and both pages are rendered in headless Chromium."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ags_platform import Platform, running
from browser import browsing, person
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from service_helpers import SAMPLES, Server, course_folder, grade, instructor_token, issue_tokens

pytestmark = pytest.mark.slow
NODE_MUL = SAMPLES / "node-mul"
STUDENTS = ["s1", "s2", "s3", "s4", "s5"]


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _api(server: Server, token: str, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(server.url + path, data=body, method=method,
                                     headers={"Authorization": f"Bearer {token}", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str], str]]:
    folder = course_folder(tmp_path_factory.mktemp("course"), deadline=_at(datetime.now(UTC) + timedelta(hours=2)),
                           students=STUDENTS)
    tokens = issue_tokens(folder)
    prof = instructor_token(folder)
    server = Server(folder).start()
    try:
        yield server, tokens, prof
    finally:
        server.stop()


def _file(tmp: Path, name: str, content: bytes) -> Path:
    path = tmp / name
    path.write_bytes(content)
    return path


def test_a_course_from_tokens_to_the_lms(course: tuple[Server, dict[str, str], str], tmp_path: Path) -> None:
    server, tokens, prof = course
    assert sorted(tokens) == STUDENTS and all(t.startswith("agt_") for t in tokens.values())
    stored = (server.course / "server" / "course.db").read_bytes()
    assert not any(t.encode() in stored for t in tokens.values())  # hashed, never in clear

    # a right file: a receipt (its sha256), then the public report, exit 0
    right = server.submit(tokens["s1"], str(NODE_MUL / "correct_lesson_style.py"))
    assert right.returncode == 0, right.stdout + right.stderr
    digest = hashlib.sha256((NODE_MUL / "correct_lesson_style.py").read_bytes()).hexdigest()
    assert right.stdout.startswith("Received: submission ") and f"sha256 {digest}" in right.stdout
    assert "received 20" in right.stdout and "more point" in right.stdout  # hidden checks still to come

    # a buggy one: its mistake named, exit 1
    buggy = server.submit(tokens["s2"], str(NODE_MUL / "swapped_slopes.py"))
    assert buggy.returncode == 1 and "swapped-locals" in buggy.stdout, buggy.stdout + buggy.stderr

    # bad files: a clear message each, exit 2, nothing stored
    bad = {"binary": (b"\x00\x01\x02 not code", "binary file"),
           "latin1": ("# exercise: node-mul\nname = 'Ren\xe9'\n".encode("latin-1"), "not UTF-8"),
           "notebook": (json.dumps({"cells": [], "nbformat": 4}).encode(), "holds a Jupyter notebook"),
           "huge": (b"# exercise: node-mul\n" + b"x = 1\n" * 20000, "KiB")}
    for name, (content, said) in bad.items():
        done = server.submit(tokens["s3"], str(_file(tmp_path, f"{name}.py", content)), "--exercise", "node-mul")
        assert done.returncode == 2 and said in done.stderr, (name, done.stdout, done.stderr)
    history = server.submit(tokens["s3"], "--history")
    assert history.stdout.strip() == "no submissions yet"

    # the daily limit (3): the fourth is refused, with when the next is possible
    for _ in range(3):
        assert server.submit(tokens["s3"], str(NODE_MUL / "overwrite.py"), "--no-wait").returncode == 0
    fourth = server.submit(tokens["s3"], str(NODE_MUL / "overwrite.py"))
    assert fourth.returncode == 2 and "daily limit" in fourth.stderr and "next can be made" in fourth.stderr

    # a retried upload (the same idempotency key) is stored once
    body = (NODE_MUL / "no_rmul.py").read_bytes()
    key = {"Idempotency-Key": "retry-1", "X-Filename": "no_rmul.py"}
    first = _api(server, tokens["s4"], "POST", "/api/submissions?exercise=node-mul", body, key)
    again = _api(server, tokens["s4"], "POST", "/api/submissions?exercise=node-mul", body, key)
    assert first[0] == 201 and again[0] == 200 and again[1]["replayed"] is True
    assert first[1]["submission"] == again[1]["submission"]
    other = _api(server, tokens["s4"], "POST", "/api/submissions?exercise=node-mul", b"x = 2\n", key)
    assert other[0] == 409

    # each student sees their own only; another's is "not found"
    mine = int(right.stdout.split()[2])
    assert _api(server, tokens["s2"], "GET", f"/api/submissions/{mine}")[0] == 404
    seen = _api(server, tokens["s1"], "GET", f"/api/submissions/{mine}?wait=30")[1]
    checks = [c for e in seen["report"]["exercises"] for c in e["checks"]]  # type: ignore[index]
    assert seen["hidden_released"] is False and all(c["visibility"] == "public" for c in checks)
    assert seen["report"]["seed"] is None and str(seen["seed_token"]).startswith("s1-")  # type: ignore[index]
    status = json.loads(server.submit(tokens["s1"], "--status", "--json").stdout)
    assert status["assignments"][0]["counted"]["score"] is None  # decided at the deadline

    # a file that prints every value it is given (the hidden checks' inputs too): its output is withheld
    leaky = (NODE_MUL / "correct_lesson_style.py").read_text().replace(
        "    def __init__(self, value, parents=(), slopes=()):\n",
        "    def __init__(self, value, parents=(), slopes=()):\n        print('LEAK', value)\n")
    printed = server.submit(tokens["s1"], str(_file(tmp_path, "leaky.py", leaky.encode())), "--json")
    shown = json.loads(printed.stdout[printed.stdout.index("{"):])
    assert shown["report"]["output"] == "" and "LEAK" not in printed.stdout, printed.stdout[-2000:]
    assert any("withheld" in note for note in shown["report"]["notes"])

    # a revoked token is refused
    assert grade("tokens", "--course", str(server.course), "--revoke", "s4").returncode == 0
    refused = server.submit(tokens["s4"], "--status")
    assert refused.returncode == 2 and "no valid token" in refused.stderr

    # the deadline passes: 36 h ago now, so s2's new submission is 2 days late (25% a day off); s1's stays on time
    server.stop()
    toml = server.course / "course.toml"
    past = _at(datetime.now(UTC) - timedelta(hours=36))
    toml.write_text("\n".join(f"deadline = {past}" if line.startswith("deadline") else line
                              for line in toml.read_text().splitlines()))
    server.start()
    late = server.submit(tokens["s2"], str(NODE_MUL / "correct_lesson_style.py"))
    assert late.returncode == 0 and "2 day(s) late" in late.stdout, late.stdout + late.stderr
    after = _api(server, tokens["s1"], "GET", f"/api/submissions/{mine}")[1]
    hidden = [c for e in after["report"]["exercises"] for c in e["checks"] if c["visibility"] == "hidden"]  # type: ignore[index]
    assert after["hidden_released"] is True and hidden and all(c["status"] == "passed" for c in hidden)
    assert all(not c.get("inputs") for c in hidden)  # the hidden checks' inputs stay withheld

    # counted: s1 full marks; s2 the better of 1/10 on time and 10/10 two days late (x0.5); s4's work stays after
    # the revocation; s5 handed in nothing
    status = json.loads(server.submit(tokens["s2"], "--status", "--json").stdout)
    assert status["assignments"][0]["counted"]["score"] == 5.0 and "50% off" in status["assignments"][0]["counted"][
        "why"]
    _publish_and_check(server, tmp_path)
    _pages(server, tokens, prof)


def _publish_and_check(server: Server, tmp_path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = tmp_path / "tool.pem"
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    with running(Platform(client_id="grader-tool", key_id="k1", public_key=public)) as platform:
        settings = tmp_path / "lms.toml"
        settings.write_text(f'client_id = "grader-tool"\ntoken_url = "{platform.token_url}"\nkey_file = "{pem}"\n'
                            f'key_id = "k1"\nlineitems = "{platform.lineitems}"\nbackoff = 0\n')
        done = grade("gradebook", "--course", str(server.course), "hw1", "--publish", str(settings))
        assert done.returncode == 0, done.stdout + done.stderr
        assert platform.problems == []
        sent = {s["userId"]: (s.get("scoreGiven"), s["scoreMaximum"]) for s in platform.scores}
    assert sent["s1"] == (10.0, 10.0) and sent["s2"] == (5.0, 10.0) and sent["s4"] == (8.0, 10.0)
    assert sent["s5"] == (0.0, 10.0)
    gradebook = (server.course / "server" / "gradebook" / "hw1" / "gradebook.csv").read_text()
    assert gradebook.splitlines()[0].endswith(",hw1") and "Student s2,s2,,,,5" in gradebook


def _chromium(url: str, shot: Path | None) -> str:
    """The page a login link leads to, signed in on the link's page as its student does, as Chromium renders it:
    its DOM (and a PNG at `shot`)."""
    with browsing() as browser:
        page = person(browser).new_page()
        page.goto(url)
        assert "Sign in as" in page.inner_text("h1"), page.content()[-2000:]
        page.click("form button")
        if shot is not None:
            page.screenshot(path=str(shot), full_page=True)
        return page.content()


def _pages(server: Server, tokens: dict[str, str], prof: str) -> None:
    shots = Path(os.environ.get("AUTOGRADER_SHOTS") or tempfile.mkdtemp(prefix="server-shots-"))
    shots.mkdir(parents=True, exist_ok=True)
    for who, token, words in (("student", tokens["s2"], ["Your submissions", "hw1", "50% off", "late"]),
                              ("instructor", prof, ["Queue", "Workers", "counted scores", "gradebook.csv", "s3"])):
        link = server.submit(token, "--login").stdout.split()[-1]
        dom = _chromium(link, None)
        assert all(word in dom for word in words), (who, [w for w in words if w not in dom])
        again = server.submit(token, "--login").stdout.split()[-1]
        _chromium(again, shots / f"{who}.png")
        assert (shots / f"{who}.png").stat().st_size > 10_000
