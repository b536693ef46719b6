"""Hostile submissions: graded with a batch of honest ones, they gain nothing, hurt no one, leave nothing."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.cli import main
from grader.core.text import file_name
from grader.course.secret import write_new_secret
from grader.judge.catalog import Catalog
from grader.judge.session import grade
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


def expectations() -> dict[str, dict[str, Any]]:
    """Each hostile sample's expectation, by the student id the batch gives it (a file's stem, a folder's name)."""
    found = {}
    for path in HOSTILE.glob("*.expect.yaml"):
        expect = yaml.safe_load(path.read_text(encoding="utf-8"))
        name = path.name.removesuffix(".expect.yaml")
        if "saved_as_latin1" in expect:  # the id of a file saved under those bytes, as every report shows it
            name = file_name(os.fsdecode(expect["saved_as_latin1"].encode("latin-1"))).removesuffix(".py")
        found[name] = expect
    return found


def class_folder(folder: Path) -> None:
    """The hostile samples as a class hands them in: files, folders (their links kept), odd file names."""
    shutil.copytree(HOSTILE, folder, symlinks=True, ignore=lambda where, names: [
        n for n in names if where == str(HOSTILE) and n.endswith(".expect.yaml")])
    for path in HOSTILE.glob("*.expect.yaml"):
        odd = yaml.safe_load(path.read_text(encoding="utf-8")).get("saved_as_latin1")
        if odd is not None:
            sample = folder / path.name.replace(".expect.yaml", ".py")
            os.rename(sample, os.path.join(os.fsencode(folder), odd.encode("latin-1")))


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the batch's isolation guarantees are root's (see the README)")
def test_a_batch_of_hostile_and_honest_submissions(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    token = f"UTC-hostile-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("TZ", token)
    for path in ESCAPES:
        Path(path).unlink(missing_ok=True)
    folder = tmp_path / "class"
    class_folder(folder)
    for name in HONEST:
        shutil.copy(ROOT / "submissions" / "node-mul" / f"{name}.py", folder / f"{name}.py")
    out = tmp_path / "reports"
    # each submission names its own exercise: an id from a submission is data, never a path to a spec
    secret = write_new_secret(tmp_path / "course-secret")  # a seed per submission: nobody's table holds it
    code = main(["batch", str(folder), "--out", str(out), "-j", "2", "--time-limit", "3",
                 "--secret-file", str(secret.path)])
    printed = capsys.readouterr()
    assert code == 0, printed  # every submission graded; the grader failed on none
    scores, outcomes = {}, {}
    for marker in (out / "students").glob("*/done.json"):
        done = json.loads(marker.read_text())
        scores[done["student"]["id"]] = json.loads((marker.parent / "report.json").read_text())["score"]
        outcomes[done["student"]["id"]] = done["outcome"]
    expected = expectations()
    assert {name: scores[name] for name in expected} == {n: e["score"] for n, e in expected.items()}  # no forged score
    assert {name: scores[name] for name in HONEST} == HONEST  # the honest students are unaffected
    assert "grader-error" not in outcomes.values()  # whatever a submission does is its own outcome
    unreadable = sorted(n for n, e in expected.items() if e.get("outcome") == "unreadable")
    assert sorted(n for n, o in outcomes.items() if o == "unreadable") == unreadable
    attention = next(line for line in printed.out.splitlines() if line.startswith("needs attention: unreadable"))
    assert all(name in attention for name in unreadable)  # never silently: the batch names them
    assert "\x1b" not in printed.out + printed.err  # a name cannot drive the instructor's terminal
    assert not [path for path in ESCAPES if Path(path).exists()]
    assert sandbox_processes(token) == []  # nothing left running


@pytest.mark.slow
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
