"""A one-worker batch's torch expected values come from a process of their own, ahead: the same values as
the worker's own, for every submission's seed, and the same reports as a batch whose workers share the
coordinator's torch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grader.cli import main
from grader.course.batch import declared_by
from grader.course.classlist import discover
from grader.course.expected_ahead import compute_ahead, needs_torch, wanted
from grader.course.manifest import Setup
from grader.course.secret import write_new_secret
from grader.course.selection import digest_content
from grader.judge.catalog import Catalog
from grader.judge.oracle import expected_values
from grader.run.inputs import draw_inputs

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Catalog(ROOT / "exercises")


@pytest.mark.slow
def test_values_computed_ahead_are_the_ones_computed_here() -> None:
    pairs = [(CATALOG.load(e), seed) for e in ("first-gradient", "zero-grad-fix", "custom-sigmoid")
             for seed in (0, 4242, 2**31 - 7)]
    found = compute_ahead(pairs)
    assert set(found) == {(e.id, seed) for e, seed in pairs}
    for exercise, seed in pairs:
        assert found[(exercise.id, seed)] == expected_values(exercise, draw_inputs(exercise, seed), seed=seed,
                                                            torch_engine=False)


def test_each_torch_exercise_is_wanted_once_per_seed_and_nothing_else(tmp_path: Path) -> None:
    torch_file, engine_file = (ROOT / "exercises" / e / "solution.py" for e in ("first-gradient", "node-mul"))
    for n, source in enumerate([torch_file, torch_file, engine_file]):
        shutil.copy(source, tmp_path / f"s{n}.py")
    (tmp_path / "s3.py").write_text(torch_file.read_text() + "# another student's\n")
    entries = discover(tmp_path).entries
    exercises = {e.student.id: declared_by(e, CATALOG) for e in entries}
    secret = write_new_secret(tmp_path.parent / f"{tmp_path.name}-secret")
    setup = Setup(exercise_ids=(), secret=secret.value)
    found = wanted(entries, exercises, setup)
    seeds = {setup.seed_of(digest_content(e.files))[0] for e in entries if e.student.id in ("s0", "s1", "s3")}
    assert len(seeds) == 2  # the same bytes, the same seed
    assert sorted((e.id, seed) for e, seed in found) == sorted(("first-gradient", seed) for seed in seeds)
    assert needs_torch(CATALOG.load("first-gradient")) and not needs_torch(CATALOG.load("node-mul"))


@pytest.mark.slow
def test_a_one_worker_batch_grades_as_a_batch_of_workers_sharing_torch(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    samples = sorted((ROOT / "submissions" / "first-gradient").glob("*.py"))
    samples += [ROOT / "exercises" / "zero-grad-fix" / "solution.py",
                ROOT / "submissions" / "node-mul" / "overwrite.py"]
    for n, sample in enumerate(samples):
        text = sample.read_text()
        if not text.startswith("# exercise:"):  # a solution names no exercise: its folder does
            text = f"# exercise: {sample.parent.name}\n{text}"
        (folder / f"s{n:02d}.py").write_text(text)
    secret = write_new_secret(tmp_path / "secret")
    reports = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}"
        assert main(["batch", str(folder), "--out", str(out), "-j", jobs, "--secret-file", str(secret.path)]) == 0
        reports[jobs] = {p.parent.name: _comparable(json.loads(p.read_text()))
                         for p in (out / "students").glob("*/report.json")}
    assert len(reports["1"]) == len(samples) and reports["1"] == reports["2"]


def _comparable(report: dict[str, object]) -> object:
    """A report without its timings."""
    return json.dumps({k: v for k, v in report.items() if k not in ("seconds", "graded_at")}, sort_keys=True)
