"""A batch survives any one student: a worker that dies or hangs is replaced and its student
graded again once, then reported as a grader error; a zygote that died starts again; the workers die with their
coordinator, kill -9 included."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from grader.cli import main
from grader.course import pool
from grader.judge.catalog import Catalog
from grader.judge.session import grade
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
HONEST = ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a batch grades under landlock or stronger (root here)")


@pytest.mark.slow
@needs_root
def test_lost_workers_are_replaced_and_their_students_graded_again_once(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("a_dies_once", "b_dies_always", "c_hangs_once", "d_hangs_always", "e_honest", "f_honest"):
        shutil.copy(HONEST, folder / f"{name}.py")
    tried = tmp_path / "tried"
    tried.mkdir()
    real = pool.grade_entry

    def worker_trouble(entry: Any, *args: Any, **kwargs: Any) -> Any:
        """Runs in the workers (they are forked after this patch): what a crash or a hang of theirs looks like."""
        name = entry.student.id
        first = not (tried / name).exists()
        (tried / name).touch()
        if name == "b_dies_always" or (name == "a_dies_once" and first):
            os._exit(9)
        if name == "d_hangs_always" or (name == "c_hangs_once" and first):
            time.sleep(3600)
        return real(entry, *args, **kwargs)

    monkeypatch.setattr(pool, "grade_entry", worker_trouble)
    monkeypatch.setattr(pool, "deadline_of", lambda setup, exercises: 10.0)
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "-j", "2"]) == 3  # grader errors: exit 3, never silently
    done = {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/done.json")}
    assert {n: d["outcome"] for n, d in done.items()} == {
        "a_dies_once": "graded", "b_dies_always": "grader-error", "c_hangs_once": "graded",
        "d_hangs_always": "grader-error", "e_honest": "graded", "f_honest": "graded"}
    assert "the worker grading this student died, 2 times" in done["b_dies_always"]["error"]
    assert "took longer than 10 s, 2 times" in done["d_hangs_always"]["error"]
    scores = {n: json.loads((out / "students" / n / "report.json").read_text())["score"] for n in done}
    assert all(scores[n] == 10 for n in ("a_dies_once", "c_hangs_once", "e_honest", "f_honest"))
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(row["student"] for row in summary["grader_errors"]) == ["b_dies_always", "d_hangs_always"]


def processes_with(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if token.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


@needs_root
def test_the_workers_die_with_their_coordinator(tmp_path: Path) -> None:
    token = f"UTC-pool-{os.getpid()}-{time.monotonic_ns()}"
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(ROOT / "submissions" / "hostile" / "loop_ignoring_signals.py", folder / "loops.py")
    out = tmp_path / "reports"
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", "1", "--time-limit", "60"],
        cwd=ROOT, env={**os.environ, "TZ": token}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # the coordinator, its worker, the worker's zygote and the run in it
            if len(processes_with(token)) >= 4:
                break
            time.sleep(0.1)
        assert len(processes_with(token)) >= 4, "the run never started"
        coordinator.send_signal(signal.SIGKILL)
        coordinator.wait()
        for _ in range(300):
            if not processes_with(token):
                break
            time.sleep(0.1)
        assert processes_with(token) == []  # the worker went at once, and its zygote and run with it
        assert not list(out.glob("students/*/done.json"))  # it did not go on grading for a batch nobody hears
    finally:
        for pid in processes_with(token):
            os.kill(pid, signal.SIGKILL)


def test_a_zygote_that_died_is_started_again_for_the_next_run() -> None:
    catalog = Catalog(ROOT / "exercises")
    exercise = catalog.load("node-mul")
    with Sandbox(hide=[catalog.root], lean=True) as sandbox:
        assert grade(HONEST, [exercise], sandbox=sandbox).score == 10
        (zygote,) = sandbox._zygotes.values()
        os.kill(zygote._pid, signal.SIGKILL)  # type: ignore[arg-type]
        for _ in range(100):
            if not zygote.alive():  # reaps it: close() must not wait for it again
                break
            time.sleep(0.05)
        for _ in range(2):
            assert grade(HONEST, [exercise], sandbox=sandbox).score == 10
