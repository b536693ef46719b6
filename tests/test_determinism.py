"""The same file and seed give the same report on a quiet machine and on a busy one, byte for byte but for the
seconds it took: samples graded in a batch, and `grade validate` of every exercise and of the example course.

"Busy" is real: a busy process on every core, started for the loaded half of each test and stopped after it.
Among the samples are engines whose walk follows a set of nodes (its order is their addresses), graded by two
workers in whatever order each happens to take them; and the example course's value-backward, whose
no-visited-set mutant was named as nothing under load.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "submissions"
MICROGRAD = ROOT / "examples" / "courses" / "micrograd"
pytestmark = pytest.mark.slow
#: samples of a whole engine, a torch exercise and a tensor engine, each graded in a second or two (none runs into
#: its time limit)
SAMPLES = [path for folder in ("whole-engine", "first-gradient", "tensor-backward")
           for path in sorted((SUBMISSIONS / folder).glob("*.py"))]
#: the micrograd course's known mistakes and variants, as students' files: their walks follow a set of nodes
COURSE_FILES = sorted(MICROGRAD.glob("*/[mv]*s/*.py"))
#: what a report may say differently from run to run: how long it took
TIMINGS = re.compile(r"\b\d+(\.\d+)? s\b")


@contextmanager
def busy_machine() -> Iterator[None]:
    """A process that spins on every core, for as long as the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def grade(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *argv], capture_output=True, text=True, timeout=1800,
                          check=False, cwd=ROOT)


def batch_reports(folder: Path, out: Path, exercises: Path) -> dict[str, object]:
    """Every student's JSON report of a batch of `folder`, the seconds it took left out."""
    ran = grade("batch", str(folder), "--out", str(out), "--jobs", "2", "--seed", "3", "--exercises", str(exercises))
    assert ran.returncode == 0, ran.stderr
    reports = {}
    for path in sorted(out.glob("students/*/report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        report.pop("seconds", None)
        reports[path.parent.name] = report
    return reports


@pytest.mark.parametrize(("exercises", "files"), [(ROOT / "exercises", SAMPLES), (MICROGRAD, COURSE_FILES)],
                         ids=["samples", "the micrograd course's mistakes and variants"])
def test_samples_graded_under_load_get_the_quiet_reports(tmp_path: Path, exercises: Path,
                                                         files: list[Path]) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for path in files:  # one file per student, named after where it comes from
        shutil.copy(path, folder / "-".join(path.relative_to(path.parents[2]).parts))
    quiet = batch_reports(folder, tmp_path / "quiet", exercises)
    with busy_machine():
        loaded = batch_reports(folder, tmp_path / "loaded", exercises)
    assert len(quiet) == len(files)
    differ = [name for name in quiet if quiet[name] != loaded.get(name)]
    assert not differ


def validated(argv: Sequence[str]) -> str:
    ran = grade("validate", *argv)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    return TIMINGS.sub("<s>", ran.stdout)


@pytest.mark.parametrize("argv", [
    ["--exercises", str(MICROGRAD), "--variant-seeds", "3"],
    ["--seeds", "1", "--variant-seeds", "1"],
], ids=["the micrograd course", "every exercise"])
def test_validate_finds_the_same_under_load(argv: list[str]) -> None:
    """Validate passes both times (the suite's seeds are fewer than the command's 40: docs/development.md)."""
    quiet = validated(argv)
    with busy_machine():
        loaded = validated(argv)
    assert quiet == loaded
