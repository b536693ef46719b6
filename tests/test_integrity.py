"""The threat model's promises, each tried as an attacker who read the grader would (docs/security.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.cli import main

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "submissions" / "hostile"
HONEST = ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"
ROOTLESS = pytest.mark.skipif(os.geteuid() != 0, reason="the test drops privileges the grader would run with")


def _marked(token: str) -> list[int]:
    """This test's processes still alive: zygotes keep TZ, and their forked children show the same environment."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if token.encode() in (proc / "environ").read_bytes() and (proc / "stat").read_text().split()[2] != "Z":
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _scores(out: Path) -> dict[str, float]:
    return {p.parent.name: json.loads(p.read_text())["score"] for p in (out / "students").glob("*/report.json")}


@ROOTLESS
def test_a_chain_left_behind_costs_the_next_students_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = f"UTC-chain-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("TZ", token)
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(HOSTILE / "leaves_a_growing_chain.py", folder / "a_chain.py")  # graded first by the one worker
    for name in ("b", "c", "d"):
        shutil.copy(HONEST, folder / f"{name}_honest.py")
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "-j", "1"]) == 0
    assert _scores(out) == {"a_chain": 10, "b_honest": 10, "c_honest": 10, "d_honest": 10}
    assert _marked(token) == []  # nothing of the chain outlived its run


@pytest.mark.slow
@ROOTLESS
def test_separate_grade_runs_cannot_reach_each_other(tmp_path: Path) -> None:
    token = f"UTC-runs-{os.getpid()}-{time.monotonic_ns()}"
    env = {**os.environ, "TZ": token}
    chain = subprocess.Popen([sys.executable, "-m", "grader", str(HOSTILE / "leaves_a_growing_chain.py"),
                              "--format", "json"], env=env, stdout=subprocess.PIPE, text=True)
    honest = [subprocess.run([sys.executable, "-m", "grader", str(HONEST), "--format", "json"], env=env,
                             capture_output=True, text=True, check=False) for _ in range(3)]
    assert json.loads(chain.communicate(timeout=60)[0])["score"] == 10
    assert [json.loads(h.stdout)["score"] for h in honest] == [10, 10, 10]
    deadline = time.monotonic() + 5
    while _marked(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marked(token) == []


def test_a_linked_submission_is_not_followed_out_of_the_folder(tmp_path: Path) -> None:
    # A "submission" that is a link to the exercise's solution would be read, and graded, by the grader itself.
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "cheat.py").symlink_to(ROOT / "exercises" / "node-mul" / "solution.py")
    shutil.copy(HONEST, folder / "honest.py")
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1"]) == 0
    assert _scores(out) == {"honest": 10}


def test_terminal_control_sequences_are_shown_not_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printing = "print('\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil')\n"
    source = HONEST.read_text().replace("import math\n", "import math\n" + printing, 1)
    path = tmp_path / "escapes.py"
    path.write_text(source)
    main([str(path), "--color", "never"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil" in out


def test_extreme_gradients_never_crash_the_grader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.py"
    source = HONEST.read_text()
    assert "parent.grad += node.grad * slope" in source
    path.write_text(source.replace("parent.grad += node.grad * slope", "parent.grad += node.grad * slope * 1.7e308"))
    assert main([str(path), "--format", "json"]) == 1  # graded, not exit 3
    report = json.loads(capsys.readouterr().out)
    assert report["score"] < 10


SOLUTION_AND_CLASSMATE = """\
import sys
os = sys.modules["os"]
found = []
for path in {paths!r}:
    try:
        with open(path) as f:
            f.read(1)
        found.append(path)
    except OSError:
        pass
print("FOUND", found)
"""


def _reads(tmp_path: Path, wrapper: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """Grade a submission that tries to read a solution and a classmate's file, under `wrapper`."""
    classmate = tmp_path / "classmate.py"
    classmate.write_text("SECRET = 1\n")
    paths = [str(ROOT / "exercises" / "node-mul" / "solution.py"), str(classmate)]
    submission = tmp_path / "reader.py"
    submission.write_text(HONEST.read_text().replace("import math\n", "import math\n" + SOLUTION_AND_CLASSMATE.format(
        paths=paths), 1))
    return subprocess.run([*wrapper, sys.executable, "-m", "grader", str(submission), "--color", "never", *args],
                          capture_output=True, text=True, check=False, cwd=ROOT)


@ROOTLESS
def test_without_cap_sys_admin_a_submission_reads_no_solution_and_no_classmate(tmp_path: Path) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    done = _reads(tmp_path, ["setpriv", "--bounding-set=-sys_admin"])
    assert done.returncode in (0, 1, 2), done.stderr
    if done.returncode == 2:  # refused, in one line, naming what is missing and the flag that accepts the risk
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and "--isolation none" in done.stderr
    else:
        assert "FOUND []" in done.stdout, done.stdout
        assert "isolation: full" in done.stdout or "isolation:" not in done.stdout


def _docker_like(landlock: bool) -> list[str]:
    """Run a command as a default Docker container's seccomp profile would: no namespaces, no mounts."""
    script = ("import os, sys; from grader.run.confine import seccomp; "
              f"assert seccomp.install(seccomp.no_namespaces_rules(landlock={landlock})); "
              "os.execvp(sys.argv[1], sys.argv[1:])")
    return [sys.executable, "-c", script]


@ROOTLESS
def test_where_namespaces_are_refused_landlock_still_hides_the_solution(tmp_path: Path) -> None:
    from grader.run.confine import landlock

    if landlock.abi() == 0:
        pytest.skip("this kernel has no Landlock")
    done = _reads(tmp_path, [*_docker_like(landlock=True), "setpriv", "--bounding-set=-sys_admin"])
    assert done.returncode in (0, 1), done.stderr
    assert "FOUND []" in done.stdout, done.stdout
    assert "isolation: landlock" in done.stdout


@ROOTLESS
def test_with_no_isolation_to_be_had_grading_refuses_unless_the_risk_is_accepted(tmp_path: Path) -> None:
    refused = _reads(tmp_path, _docker_like(landlock=False))
    assert refused.returncode == 2 and refused.stderr.startswith("error: cannot isolate submissions here")
    assert refused.stderr.count("\n") == 1 and "--isolation none" in refused.stderr
    accepted = _reads(tmp_path, _docker_like(landlock=False), "--isolation", "none")
    assert accepted.returncode in (0, 1), accepted.stderr
    assert "isolation: none" in accepted.stdout
