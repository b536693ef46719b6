"""Setting a course up: a course.toml that names catalog exercises without a copy of them serves
and grades on a real `grade serve`; its `/` says what the server is (rendered in headless Chromium, at a phone's
width too); tokens.csv and the pack's TOML have plain \\n line endings; and the pack's README says how to submit
and where the token goes, in words that work when followed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest
from browser import FLAGS, chromium
from service_helpers import ROOT, SAMPLES, Server, grade, issue_tokens

from grader.core.errors import GraderError
from grader.service.config import load_course

COURSE_TOML = '''name = "Autograd <101> & friends"
roster = "roster.csv"
[assignments.hw1]
exercises = ["node-mul"]
deadline = 2099-01-01T00:00:00Z
'''


def _bare_course(folder: Path) -> Path:
    """course.toml and the roster only: no exercises/, no exercises = "..."."""
    folder.mkdir()
    (folder / "course.toml").write_text(COURSE_TOML)
    (folder / "roster.csv").write_text("id,name,email\nu1,Student One,u1@example.edu\n")
    return folder


def test_a_course_names_catalog_exercises_without_a_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    course = _bare_course(tmp_path / "course")
    monkeypatch.setenv("AUTOGRADER_EXERCISES", str(ROOT / "exercises"))
    assert load_course(course).exercises == ROOT / "exercises"
    monkeypatch.delenv("AUTOGRADER_EXERCISES")
    monkeypatch.chdir(tmp_path)  # no ./exercises here: the catalog beside the grader's checkout
    assert load_course(course).exercises.resolve() == (ROOT / "exercises").resolve()
    monkeypatch.setenv("AUTOGRADER_EXERCISES", str(tmp_path / "nowhere"))
    with pytest.raises(GraderError, match=r"course.toml: which exercises\? The course folder has no exercises/, and "
                                          r"\$AUTOGRADER_EXERCISES \(.*nowhere\) is not a folder"):
        load_course(course)
    (course / "exercises").mkdir()  # a folder of its own still comes first, as before
    with pytest.raises(GraderError, match="unknown exercise 'node-mul'"):
        load_course(course)


@pytest.mark.slow
def test_the_servers_front_page_says_what_it_is(tmp_path: Path) -> None:
    course = _bare_course(tmp_path / "course")
    env = {"AUTOGRADER_EXERCISES": str(ROOT / "exercises")}
    tokens = issue_tokens(course, env=env)
    server = Server(course, workers=1, env=env).start()
    try:
        done = server.submit(tokens["u1"], str(SAMPLES / "node-mul" / "correct_lesson_style.py"))
        assert "Score: 9/9 on the public checks" in done.stdout, done.stdout + done.stderr  # graded from the catalog
        with urllib.request.urlopen(server.url + "/", timeout=30) as response:
            assert response.status == 200 and response.headers["content-type"].startswith("text/html")
            html = response.read().decode()
        assert "<h1>Autograd &lt;101&gt; &amp; friends</h1>" in html and "<101>" not in html
        assert "grade submit --login" in html and 'href="/me"' in html and 'href="/instructor"' in html
        shots = Path(os.environ.get("AUTOGRADER_SHOTS") or tempfile.mkdtemp(prefix="server-shots-"))
        shots.mkdir(parents=True, exist_ok=True)
        for name, size in (("front-page.png", "1280,900"), ("front-page-phone.png", "390,844")):
            with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
                shown = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}",
                                        f"--screenshot={shots / name}", f"--window-size={size}", server.url + "/"],
                                       capture_output=True, text=True, timeout=120, check=False)
            assert shown.returncode == 0 and (shots / name).stat().st_size > 5_000, shown.stderr[-2000:]
    finally:
        server.stop()


@pytest.mark.slow
def test_tokens_csv_and_the_packs_files_have_plain_newlines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    course = _bare_course(tmp_path / "course")
    env = {"AUTOGRADER_EXERCISES": str(ROOT / "exercises")}
    printed = subprocess.run([sys.executable, "-m", "grader", "tokens", "--course", str(course)], capture_output=True,
                             env={**os.environ, **env}, timeout=120, check=False)
    assert printed.returncode == 0 and printed.stdout.count(b"\n") == 2 and b"\r" not in printed.stdout
    written = grade("tokens", "--course", str(course), "--again", "-o", str(tmp_path / "tokens.csv"), env=env)
    assert written.returncode == 0, written.stderr
    data = (tmp_path / "tokens.csv").read_bytes()
    assert data.startswith(b"id,name,email,token\nu1,Student One,u1@example.edu,agt_") and b"\r" not in data

    pack = tmp_path / "pack"
    done = grade("release", "node-mul", "--out", str(pack), "--server", "https://grader.example.edu/", env=env)
    assert done.returncode == 0, done.stderr
    for name in ("grade-course.toml", "README.md"):
        assert b"\r" not in (pack / name).read_bytes(), name
    readme = (pack / "README.md").read_text()
    assert "## Submit your work" in readme and "https://grader.example.edu" in readme
    assert "grade submit FILE --assignment ID" in readme and "grade submit --status" in readme
    assert "never share it" in readme
    # followed word for word: the token line the README shows, added to the file it names, is found there
    shown = re.search(r"```toml\n(token = \"agt_\.\.\.\")\n```", readme)
    assert shown is not None and "`grade-course.toml` names your course's server" in readme
    token = data.decode().splitlines()[1].split(",")[-1]
    with (pack / "grade-course.toml").open("a") as toml:
        toml.write(shown[1].replace("agt_...", token) + "\n")
    from grader.service.client import settings

    monkeypatch.delenv("AUTOGRADER_SERVER", raising=False)
    monkeypatch.delenv("AUTOGRADER_TOKEN", raising=False)
    found = settings(pack)
    assert found.server == "https://grader.example.edu" and found.token == token
    without = grade("release", "node-mul", "--out", str(tmp_path / "plain"), env=env)
    assert without.returncode == 0
    text = (tmp_path / "plain" / "README.md").read_text()
    assert 'server = "https://grader.example.edu"\ntoken = "agt_..."' in text and "$AUTOGRADER_SERVER" in text
