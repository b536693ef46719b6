"""Hostile submissions: graded with a batch of honest ones, they gain nothing, hurt no one, leave nothing."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
import yaml

from grader.cli import main
from grader.judge.catalog import Catalog
from grader.judge.grading import grade
from grader.outputs.render_json import report_to_dict
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "submissions" / "hostile"
HONEST = {"correct_lesson_style": 10, "swapped_slopes": 1}
#: files the hostile samples try to leave behind on the grader's machine
ESCAPES = ["/tmp/results.json", "/tmp/autograd-grader-forged-report.json", "/tmp/autograd-grader-escape.txt",
           "/var/tmp/autograd-grader-escape.txt", "/dev/shm/escape", str(ROOT / "autograd-grader-escape.txt"),
           str(ROOT / "results.json")]


def sandbox_processes(token: str) -> list[str]:
    """This test's processes still running as a sandbox user (uids from 70000), found by `token` in TZ,
    which zygotes keep and their children share (other runs on the machine have their own)."""
    left = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid >= 70000 and \
                        token.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                    left.append(Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:
                continue
    return left


@pytest.mark.skipif(os.geteuid() != 0, reason="the batch's isolation guarantees are root's (see the README)")
def test_a_batch_of_hostile_and_honest_submissions(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    token = f"UTC-hostile-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("TZ", token)
    for path in ESCAPES:
        Path(path).unlink(missing_ok=True)
    folder = tmp_path / "class"
    shutil.copytree(HOSTILE, folder, ignore=shutil.ignore_patterns("*.yaml"))
    for name in HONEST:
        shutil.copy(ROOT / "submissions" / "node-mul" / f"{name}.py", folder / f"{name}.py")
    out = tmp_path / "reports"
    code = main(["batch", str(folder), "--out", str(out), "-j", "2", "--time-limit", "3"])
    assert code == 0, capsys.readouterr()  # every submission graded; the grader failed on none
    scores = {p.parent.name: json.loads(p.read_text())["score"] for p in (out / "students").glob("*/report.json")}
    expected = {p.name.removesuffix(".expect.yaml"): yaml.safe_load(p.read_text())["score"]
                for p in HOSTILE.glob("*.expect.yaml")}
    assert {name: scores[name] for name in expected} == expected  # a forged score never counts
    assert {name: scores[name] for name in HONEST} == HONEST  # the honest students are unaffected
    assert not [path for path in ESCAPES if Path(path).exists()]
    assert sandbox_processes(token) == []  # nothing left running


def test_the_same_submission_twenty_times_gives_the_same_report() -> None:
    catalog = Catalog(ROOT / "exercises")
    samples = [(ROOT / "submissions" / "tiny-engine" / "exp_slope_from_input.py", "tiny-engine"),
               (ROOT / "submissions" / "notebooks" / "runtime_error_in_a_cell.ipynb", "first-gradient"),
               (HOSTILE / "hostile_values.py", "node-mul")]
    with Sandbox(hide=[catalog.root]) as sandbox:
        for path, exercise_id in samples:
            reports = set()
            for _ in range(20):
                report = report_to_dict(grade(path, [catalog.load(exercise_id)], seed=3, sandbox=sandbox))
                report["seconds"] = 0  # timings aside
                reports.add(json.dumps(report, sort_keys=True))
            assert len(reports) == 1, path.name
