"""A pack released before its exercise changed is stale, and both sides are told: the student by
`grade submit` (and `--status`), run in the pack as a student runs it, and the instructor by the
class page, until the student submits from the pack released again. A real `grade serve` on
loopback, on SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import re
import shutil
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import (
    ROOT,
    SAMPLES,
    Server,
    course_folder,
    grade,
    instructor_token,
    issue_tokens,
    postgres,
)

from grader.course.pack.fingerprint import LENGTH, fingerprint, header_value, parse_header

LATER = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
STALE = "Your pack is out of date for node-mul"


def _copy_exercises(folder: Path) -> Path:
    exercises = folder / "exercises"
    shutil.copytree(ROOT / "exercises", exercises, ignore=shutil.ignore_patterns("__pycache__"))
    return exercises


def _release(exercises: Path, out: Path, server: str) -> None:
    done = grade(
        "release", "node-mul", "--exercises", str(exercises), "--out", str(out), "--server", server
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _in_pack(pack: Path, token: str, *args: str) -> str:
    """`grade submit` run inside the pack, as the student runs it (their token in the pack's course
    file)."""
    course_file = pack / "grade-course.toml"
    if "\ntoken = " not in course_file.read_text():
        course_file.write_text(course_file.read_text() + f'token = "{token}"\n')
    done = grade(
        "submit",
        *args,
        cwd=pack,
        env={"AUTOGRADER_SERVER": "", "AUTOGRADER_TOKEN": "", "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _class_page(server: Server, prof: str) -> str:
    link = server.submit(prof, "--login").stdout.split()[-1]

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    try:
        urllib.request.build_opener(Stay).open(
            urllib.request.Request(link, data=b"", headers={"Origin": server.url})
        )
    except urllib.error.HTTPError as exc:
        session = exc.headers["set-cookie"].split(";")[0]
        exc.close()
    with urllib.request.urlopen(
        urllib.request.Request(f"{server.url}/instructor", headers={"Cookie": session}), timeout=60
    ) as page:
        return str(page.read().decode())


@pytest.mark.slow
@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_stale_pack_is_told_to_the_student_and_the_instructor(tmp_path: Path, store: str) -> None:
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres()).url if store == "postgresql" else ""
        exercises = _copy_exercises(tmp_path)
        course = course_folder(tmp_path / "course", deadline=LATER, students=["s1", "s2"])
        toml = course / "course.toml"
        text = toml.read_text().replace(
            f'exercises = "{ROOT / "exercises"}"', f'exercises = "{exercises}"'
        )
        toml.write_text((f'database = "{database}"\n' if database else "") + text)
        tokens, prof = issue_tokens(course), instructor_token(course)
        server = stack.enter_context(
            contextlib.closing(_Stopping(Server(course, workers=0).start()))
        )
        old = tmp_path / "s1" / "pack"
        _release(exercises, old, server.url)
        shutil.copy(SAMPLES / "node-mul" / "correct_lesson_style.py", old / "node-mul.py")
        said = _in_pack(old, tokens["s1"], "node-mul.py", "--no-wait")
        assert "Received: submission" in said and STALE not in said
        # the instructor fixes node-mul's tolerance mid-term
        spec = exercises / "node-mul" / "exercise.yaml"
        spec.write_text(
            spec.read_text().replace(
                "time_limit: 5\n", "time_limit: 5\ntolerance: {rtol: 1.0e-6}\n"
            )
        )
        said = _in_pack(old, tokens["s1"], "node-mul.py", "--no-wait")
        assert "Received: submission" in said and STALE in said, said
        assert STALE in _in_pack(old, tokens["s1"], "--status")
        page = _class_page(server.server, prof)
        stale = re.search(r"<h2>Stale packs</h2>.*?</table>", page, re.S)
        assert stale is not None and "node-mul" in stale.group(0) and "s1" in stale.group(0), page[
            -3000:
        ]
        assert "s2" not in stale.group(0)
        # released again: the student copies their work into it and submits; nobody is listed any
        # more
        new = tmp_path / "s1" / "pack-2"
        _release(exercises, new, server.url)
        shutil.copy(old / "node-mul.py", new / "node-mul.py")
        said = _in_pack(new, tokens["s1"], "node-mul.py", "--no-wait")
        assert "Received: submission" in said and STALE not in said, said
        assert "Stale packs" not in _class_page(server.server, prof)


class _Stopping:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.url = server.url

    def close(self) -> None:
        self.server.stop()


def test_only_what_a_pack_is_made_of_counts(tmp_path: Path) -> None:
    """A hidden check changed leaves the packs current; a public check, the starter or a mistake
    makes them stale. A pack released again from a pack keeps the first pack's fingerprints."""
    exercises = _copy_exercises(tmp_path)
    folder = exercises / "node-mul"
    first = fingerprint(folder)
    assert len(first) == LENGTH and fingerprint(folder) == first
    spec = folder / "exercise.yaml"
    text = spec.read_text()
    hidden = text.rindex("visibility: hidden")
    spec.write_text(text[:hidden] + text[hidden:].replace("points: 1", "points: 2", 1))
    assert fingerprint(folder) == first  # a hidden check's points: not in any pack
    spec.write_text(text.replace("time_limit: 5\n", "time_limit: 5\ntolerance: {rtol: 1.0e-6}\n"))
    assert fingerprint(folder) != first
    spec.write_text(text)
    (folder / "starter.py").write_text((folder / "starter.py").read_text() + "\n# a hint\n")
    assert fingerprint(folder) != first
    done = grade(
        "release", "node-mul", "--exercises", str(exercises), "--out", str(tmp_path / "pack")
    )
    assert done.returncode == 0, done.stderr
    again = grade(
        "release",
        "node-mul",
        "--exercises",
        str(tmp_path / "pack" / "exercises"),
        "--out",
        str(tmp_path / "again"),
    )
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "exercises" / "pack.json").read_text() == (
        tmp_path / "pack" / "exercises" / "pack.json"
    ).read_text()


def test_a_students_header_is_read_bounded() -> None:
    good = "a" * LENGTH
    assert parse_header(f"node-mul={good}, node-add={good}") == {"node-mul": good, "node-add": good}
    assert parse_header(f"../x={good},node-mul=XYZ,{'n' * 200}={good},=,,") == {}
    assert parse_header("node-mul=" + "a" * 9000) == {}
    assert len(parse_header(",".join(f"e{i}={good}" for i in range(300)))) < 300
    assert header_value({"node-mul": good, "bad id/": good}) == f"node-mul={good}"
