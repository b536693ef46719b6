"""A student with only the pack: a fresh virtual environment, no checkout, no index that has the
grader. They run the pack README's install line, which takes the grader from the pack's wheels/ and
only its dependencies from the machine's usual index (here its local one, and torch at the pin the
README names), then check their work with `grade` and hand it in with `grade submit` to a real
course server on loopback. From that installed grader (no checkout), `grade release` packs the same
grader again."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from service_helpers import ROOT, SAMPLES, course_folder, grade, issue_tokens, serving

from grader import __version__
from grader.course.pack.export import TORCH_PIN

pytestmark = pytest.mark.slow
LATER = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
WHEEL = f"autograd_grader-{__version__}-py3-none-any.whl"


def _env(home: Path) -> dict[str, str]:
    """What a student's shell has: none of the suite's settings, no path into the checkout."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AUTOGRADER_", "PYTHON", "VIRTUAL_ENV"))
    }
    return {
        **kept,
        "HOME": str(home),
        "NO_COLOR": "1",
        "PATH": os.pathsep.join(
            p for p in kept.get("PATH", "").split(os.pathsep) if ".venv" not in p
        ),
    }


def _run(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _install_lines(readme: str) -> list[str]:
    """The pack README's install commands (its first sh block)."""
    block = re.search(r"## Install.*?```sh\n(.*?)```", readme, re.S)
    assert block is not None, readme[:2000]
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_a_student_installs_the_grader_from_the_pack_checks_and_submits(tmp_path: Path) -> None:
    course = course_folder(tmp_path / "course", deadline=LATER, students=["s1"])
    token = issue_tokens(course)["s1"]
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    with serving(course, workers=1) as server:
        released = grade(
            "release",
            "node-mul",
            "--exercises",
            str(ROOT / "exercises"),
            "--out",
            str(tmp_path / "handout"),
            "--server",
            server.url,
        )
        assert released.returncode == 0, released.stdout + released.stderr
        pack = (
            tmp_path / "student" / "pack"
        )  # all the student has: the pack, copied as it was handed out
        shutil.copytree(tmp_path / "handout", pack)
        venv = tmp_path / "student" / "venv"
        assert _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env).returncode == 0
        pip, python = str(venv / "bin" / "pip"), str(venv / "bin" / "python")
        # no index has the grader
        missing = _run(
            [pip, "download", "--no-deps", "-d", str(tmp_path / "dl"), "autograd-grader"], pack, env
        )
        assert (
            missing.returncode != 0
            and "No matching distribution found for autograd-grader" in missing.stderr
        )
        torch_line, grader_line = _install_lines((pack / "README.md").read_text(encoding="utf-8"))
        assert torch_line.startswith(f"pip install torch=={TORCH_PIN} ")
        assert grader_line == f"pip install ./wheels/{WHEEL}"
        # torch at the README's pin, from the machine's own copy of that wheel (its CPU index is not
        # reached here)
        done = _run([pip, "install", f"torch=={TORCH_PIN}"], pack, env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        done = _run([pip, *grader_line.split()[1:]], pack, env)  # the README's line, as written
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        where = _run([python, "-c", "import grader; print(grader.__file__)"], tmp_path, env)
        assert where.stdout.startswith(str(venv)), (
            where.stdout + where.stderr
        )  # the installed one, no checkout
        # the student's work: checked here, then handed in with their token in the pack's course
        # file
        shutil.copy(SAMPLES / "node-mul" / "correct_lesson_style.py", pack / "node-mul.py")
        grade_bin = str(venv / "bin" / "grade")
        checked = _run([grade_bin, "node-mul.py"], pack, env, timeout=300)
        assert checked.returncode == 0 and "9/9" in checked.stdout, checked.stdout + checked.stderr
        with (pack / "grade-course.toml").open("a", encoding="utf-8") as course_file:
            course_file.write(f'token = "{token}"\n')
        sent = _run([grade_bin, "submit", "node-mul.py"], pack, env, timeout=300)
        assert sent.returncode == 0 and "Received: submission" in sent.stdout, (
            sent.stdout + sent.stderr
        )
        history = _run([grade_bin, "submit", "--history"], pack, env, timeout=120)
        assert history.returncode == 0 and "node-mul.py" in history.stdout, (
            history.stdout + history.stderr
        )
    # released again from the installed grader (no checkout): the same grader, packed from its
    # installed files
    again = _run(
        [
            grade_bin,
            "release",
            "node-mul",
            "--exercises",
            str(pack / "exercises"),
            "--out",
            str(tmp_path / "again"),
        ],
        tmp_path,
        env,
        timeout=300,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    with (
        zipfile.ZipFile(tmp_path / "handout" / "wheels" / WHEEL) as first,
        zipfile.ZipFile(tmp_path / "again" / "wheels" / WHEEL) as second,
    ):
        assert sorted(first.namelist()) == sorted(second.namelist())
        for name in first.namelist():
            if not name.endswith("/RECORD"):
                assert first.read(name) == second.read(name), name
