"""A run the machine's load cut short is never evidence: a localization or a known mistake's run that ran out of
time is run again, and where it runs out twice, its diagnosis is withheld with a note.

A sandbox stands in for a busy machine here: the runs it is told to cut short come back as a timeout would leave
them, stopped part of the way through, and every other run is real. The quiet grading of the same file is the
reference, compared as JSON with the timings left out.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from grader.core.exercise import Device, Visibility
from grader.judge.catalog import Catalog
from grader.judge.session import grade
from grader.outputs.render_json import render_json
from grader.run.observed import RunResult, Stop
from grader.run.read.load import Submission
from grader.run.sandbox import Group, PendingRun, Sandbox

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow
#: the stop a busy machine leaves
LATE = Stop("timeout", "did not finish within 5 s (the time limit)")


class _Cut:
    """A run's result, cut short after `keep` of its probes as a timeout leaves it."""

    def __init__(self, pending: PendingRun, keep: int) -> None:
        self._pending, self._keep = pending, keep

    def result(self) -> RunResult:
        run = self._pending.result()
        group = run.groups[0]
        probes = tuple(p if i < self._keep else None for i, p in enumerate(group.probes))
        return dataclasses.replace(run, groups=(dataclasses.replace(group, probes=probes, stopped_at=self._keep,
                                                                     stop=LATE), *run.groups[1:]))


class BusySandbox(Sandbox):
    """Cuts short the first `times` runs that `which` picks, as a loaded machine's timeout would."""

    def __init__(self, which: Callable[[Submission, Sequence[Group]], bool], times: int, keep: int = 9) -> None:
        super().__init__()
        self.which, self.left, self.keep, self.cut = which, times, keep, 0

    def launch(self, submission: Submission, groups: Sequence[Group], *, device: Device = "cpu",
               time_limit: float | None = None, visibility: Visibility | None = None) -> PendingRun:
        pending = super().launch(submission, groups, device=device, time_limit=time_limit, visibility=visibility)
        if self.left and self.which(submission, groups):
            self.left -= 1
            self.cut += 1
            return _Cut(pending, self.keep)  # type: ignore[return-value]
        return pending


def localizing(_: Submission, groups: Sequence[Group]) -> bool:
    return groups[0].exercise.id.endswith("-localize")


def report(path: Path, exercise_id: str, sandbox: Sandbox) -> dict[str, object]:
    data = json.loads(render_json(grade(path, [Catalog(ROOT / "exercises").load(exercise_id)], sandbox=sandbox)))
    data.pop("seconds", None)
    return data


@pytest.fixture(scope="module")
def quiet() -> dict[str, dict[str, object]]:
    with Sandbox() as sandbox:
        return {name: report(ROOT / "submissions" / "whole-engine" / name, "tiny-engine", sandbox)
                for name in ("backward_no_visited.py",)}


def test_a_localization_cut_short_once_is_run_again_and_the_report_is_the_quiet_ones(
        quiet: dict[str, dict[str, object]]) -> None:
    name = "backward_no_visited.py"
    with BusySandbox(localizing, times=1) as busy:
        loaded = report(ROOT / "submissions" / "whole-engine" / name, "tiny-engine", busy)
    assert busy.cut == 1
    assert loaded == quiet[name]


def test_a_localization_out_of_time_twice_names_no_rule_and_says_so(quiet: dict[str, dict[str, object]]) -> None:
    with BusySandbox(localizing, times=100) as busy:
        loaded = report(ROOT / "submissions" / "whole-engine" / "backward_no_visited.py", "tiny-engine", busy)
    kinds = {c["diagnosis"]["kind"] for e in loaded["exercises"] for c in e["checks"]  # type: ignore[attr-defined]
             if c.get("diagnosis")}
    assert "localized" not in kinds
    assert any("ran out of time on the grader's own small probes" in note for note in loaded["notes"])  # type: ignore[attr-defined]


def test_a_known_mistake_cut_short_once_is_run_again(tmp_path: Path) -> None:
    """value-backward's no-visited-set, graded as a student's file: its own run, cut short, would not be named."""
    course = Catalog(ROOT / "examples" / "courses" / "micrograd")
    exercise = course.load("value-backward")
    mutant = next(m for m in exercise.mutants if m.mistake == "no-visited-set")

    def its_run(submission: Submission, groups: Sequence[Group]) -> bool:
        return submission.path == mutant.path and groups[0].exercise.id == exercise.id

    reports = []
    for sandbox in (Sandbox(), BusySandbox(its_run, times=1, keep=2)):
        with sandbox:
            found = json.loads(render_json(grade(mutant.path, [exercise], sandbox=sandbox)))
        found.pop("seconds")
        reports.append(found)
    named = {c["diagnosis"]["mistake"] for e in reports[1]["exercises"] for c in e["checks"] if c.get("diagnosis")}
    assert "no-visited-set" in named and reports[0] == reports[1]


def test_a_known_mistake_out_of_time_twice_names_nothing_and_says_so() -> None:
    course = Catalog(ROOT / "examples" / "courses" / "micrograd")
    exercise = course.load("value-backward")
    mutant = next(m for m in exercise.mutants if m.mistake == "no-visited-set")

    def its_run(submission: Submission, groups: Sequence[Group]) -> bool:
        return submission.path == mutant.path and groups[0].exercise.id == exercise.id

    with BusySandbox(its_run, times=100, keep=2) as busy:
        found = json.loads(render_json(grade(mutant.path, [exercise], sandbox=busy)))
    known = {c["diagnosis"]["mistake"] for e in found["exercises"] for c in e["checks"]
             if c.get("diagnosis") and c["diagnosis"]["kind"] == "known-mistake"}
    assert "no-visited-set" not in known
    assert "The grader's own run of the known mistake no-visited-set ran out of time twice (a busy machine): it " \
           "names nothing here." in found["notes"]
