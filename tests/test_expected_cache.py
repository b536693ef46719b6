"""Expected values kept between `grade` calls: found again only for the same exercise, inputs, seed and code,
and trusted only from a folder and a file this user alone can write (grader.judge.expected_cache)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.core.exercise import Exercise
from grader.judge import grading, session
from grader.judge.catalog import Catalog
from grader.judge.expected_cache import ExpectedStore, cache_folder, entry_key
from grader.judge.oracle import expected_values
from grader.judge.report import Report
from grader.run.confine import isolate
from grader.run.inputs import draw_inputs
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "submissions" / "first-gradient" / "correct_float32.py"


@pytest.fixture
def course(tmp_path: Path) -> Catalog:
    """A copy of two exercises, to change as an instructor would."""
    for name in ("first-gradient", "tensor-matmul"):
        shutil.copytree(ROOT / "exercises" / name, tmp_path / "exercises" / name)
    return Catalog(tmp_path / "exercises")


@pytest.fixture
def store(tmp_path: Path) -> ExpectedStore:
    return ExpectedStore(tmp_path / "cache" / "expected")


def _computed(exercise: Exercise, seed: int = 0) -> tuple[Any, ...]:
    return expected_values(exercise, draw_inputs(exercise, seed), seed=seed, torch_engine=False)


def _saved(store: ExpectedStore, exercise: Exercise, seed: int = 0) -> Path:
    store.save(exercise, draw_inputs(exercise, seed), seed, _computed(exercise, seed))
    entry = store.folder / f"{entry_key(exercise, draw_inputs(exercise, seed), seed)}.json"
    assert entry.is_file()
    return entry


def _load(store: ExpectedStore, exercise: Exercise, seed: int = 0) -> tuple[Any, ...] | None:
    return store.load(exercise, draw_inputs(exercise, seed), seed)


@pytest.mark.parametrize("exercise_id", ["first-gradient", "tensor-matmul"])
def test_values_read_back_exactly_as_computed(course: Catalog, store: ExpectedStore, exercise_id: str) -> None:
    exercise = course.load(exercise_id)
    assert _load(store, exercise) is None
    entry = _saved(store, exercise)
    assert _load(store, exercise) == _computed(exercise)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert store.folder.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("changed", ["solution.py", "exercise.yaml", "mutants/by_hand.py", "a new data file"])
def test_any_change_to_the_exercises_files_is_a_miss(course: Catalog, store: ExpectedStore, changed: str) -> None:
    exercise = course.load("first-gradient")
    _saved(store, exercise)
    if changed == "a new data file":
        (exercise.folder / "data.csv").write_text("1,2\n")
    else:
        path = exercise.folder / changed
        path.write_text(path.read_text() + "\n# changed\n")
    assert _load(store, course.load("first-gradient")) is None


def test_another_seed_is_a_miss(course: Catalog, store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    _saved(store, exercise, seed=0)
    assert _load(store, exercise, seed=1) is None
    _saved(store, exercise, seed=1)
    assert _load(store, exercise, seed=1) == _computed(exercise, seed=1)
    assert _load(store, exercise, seed=0) == _computed(exercise, seed=0)


def test_other_inputs_are_a_miss(course: Catalog, store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    _saved(store, exercise)
    other = draw_inputs(exercise, 1)
    assert store.load(exercise, other, 0) is None


def test_another_version_of_the_grader_is_a_miss(course: Catalog, store: ExpectedStore,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = course.load("first-gradient")
    _saved(store, exercise)
    monkeypatch.setattr("grader.judge.expected_cache._code_digest", lambda: "the grader's code, edited")
    assert _load(store, exercise) is None


def _tampered(entry: Path, change: Any) -> None:
    data = json.loads(entry.read_text())
    change(data)
    entry.write_text(json.dumps(data))


def _negate(data: Any) -> None:
    """Every expected number of an entry, negated: what a forger would write to pass wrong code."""
    if isinstance(data, dict):
        if data.get("t") == "num":
            data["v"] = -data["v"]
        for value in data.values():
            _negate(value)
    elif isinstance(data, list):
        for value in data:
            _negate(value)


@pytest.mark.parametrize("change", [
    lambda d: d.update(key="0" * 64),
    lambda d: d.update(exercise="node-mul"),
    lambda d: d["probes"].pop(),
    lambda d: d["probes"].reverse(),
    lambda d: d["probes"][0]["observations"]["loss"].update(v="0.16"),
    lambda d: d["probes"][0]["observations"]["loss"].update(extra=1),
    lambda d: d["probes"][0].update(disagreements="none"),
    lambda d: d.update(format=0),
], ids=["another key", "another exercise", "a probe missing", "probes reordered", "a number as text",
        "an extra field", "disagreements not a list", "another format"])
def test_an_entry_that_does_not_parse_exactly_is_a_miss(course: Catalog, store: ExpectedStore, change: Any) -> None:
    exercise = course.load("first-gradient")
    _tampered(_saved(store, exercise), change)
    assert _load(store, exercise) is None


def test_a_truncated_entry_is_a_miss_and_is_written_again(course: Catalog, store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    entry = _saved(store, exercise)
    entry.write_bytes(entry.read_bytes()[:100])
    assert _load(store, exercise) is None
    _saved(store, exercise)
    assert _load(store, exercise) == _computed(exercise)


def test_an_entry_others_may_write_is_not_trusted(course: Catalog, store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    entry = _saved(store, exercise)
    for mode in (0o620, 0o602):
        entry.chmod(mode)
        assert _load(store, exercise) is None
    entry.chmod(0o644)  # others may read it: values are no secret from this user's own processes
    assert _load(store, exercise) == _computed(exercise)


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_folder_others_may_write_is_neither_read_nor_written(course: Catalog, store: ExpectedStore,
                                                               mode: int) -> None:
    exercise = course.load("first-gradient")
    entry = _saved(store, exercise)
    store.folder.chmod(mode)
    assert _load(store, exercise) is None
    entry.unlink()
    store.save(exercise, draw_inputs(exercise, 0), 0, _computed(exercise))
    assert not entry.exists()


def test_links_are_not_followed(course: Catalog, store: ExpectedStore, tmp_path: Path) -> None:
    exercise = course.load("first-gradient")
    entry = _saved(store, exercise)
    elsewhere = tmp_path / "elsewhere.json"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert _load(store, exercise) is None
    linked = ExpectedStore(tmp_path / "linked")
    linked.folder.symlink_to(store.folder)
    elsewhere.rename(entry)
    assert _load(store, exercise) == _computed(exercise)
    assert _load(linked, exercise) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_an_entry_or_folder_of_another_user_is_not_trusted(course: Catalog, store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    entry = _saved(store, exercise)
    os.chown(entry, 65534, 65534)
    assert _load(store, exercise) is None
    os.chown(entry, 0, 0)
    os.chown(store.folder, 65534, 65534)
    assert _load(store, exercise) is None


def test_the_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "mine"))
    assert cache_folder() == tmp_path / "mine"
    monkeypatch.setenv("AUTOGRADER_CACHE", "off")
    assert cache_folder() is None and ExpectedStore.for_user() is None
    monkeypatch.delenv("AUTOGRADER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "autograd-grader" / "expected"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: relative paths are invalid
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_folder() == tmp_path / "home" / ".cache" / "autograd-grader" / "expected"


def _grade(course: Catalog, store: ExpectedStore | None, mode: isolate.Mode | None = None) -> Report:
    exercise = course.load("first-gradient")
    with Sandbox(hide=[course.root], mode=mode) as sandbox:
        return session.grade(CORRECT, [exercise], sandbox=sandbox, store=store)


def _without_time(report: Report) -> dict[str, Any]:
    from grader.outputs.render_json import render_json

    data = json.loads(render_json(report))
    data.pop("seconds", None)
    return dict(data)


@pytest.mark.slow
def test_grade_keeps_the_values_and_the_next_grade_reads_them(course: Catalog, store: ExpectedStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    first = _grade(course, store)
    assert first.score == first.max_score
    assert len(list(store.folder.glob("*.json"))) == 1

    def computing(*_: object, **__: object) -> None:
        raise AssertionError("the values were computed again")

    monkeypatch.setattr(grading, "expected_values", computing)
    second = _grade(course, store)
    assert _without_time(second) == _without_time(first)  # the same report, byte for byte but the time


@pytest.mark.slow
def test_grade_does_not_trust_a_forged_entry_in_a_folder_others_may_write(course: Catalog,
                                                                         store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    entry = _saved(store, exercise)
    _tampered(entry, _negate)
    assert _grade(course, store).score < exercise.points  # forged in this user's own folder: the user's choice
    store.folder.chmod(0o777)
    assert _grade(course, store).score == exercise.points  # here anyone could have forged them: computed again


@pytest.mark.slow
def test_without_isolation_the_cache_is_neither_read_nor_written(course: Catalog, store: ExpectedStore) -> None:
    exercise = course.load("first-gradient")
    _tampered(_saved(store, exercise), _negate)
    report = _grade(course, store, isolate.Mode("none"))
    assert report.score == exercise.points
    for entry in store.folder.glob("*.json"):
        entry.unlink()
    _grade(course, store, isolate.Mode("none"))
    assert not list(store.folder.glob("*.json"))


@pytest.mark.slow
def test_a_pack_keeps_nothing_its_values_are_stored_already(tmp_path: Path, store: ExpectedStore) -> None:
    from grader.course.pack.release import release

    release(Catalog(ROOT / "exercises"), tmp_path / "pack", ["first-gradient"], [])
    report = _grade(Catalog(tmp_path / "pack" / "exercises"), store)
    assert report.score == report.max_score
    assert not store.folder.exists()
