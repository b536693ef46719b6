"""How known mistakes run for a seed of each submission's own: a mutant's checks in one child where every
public check comes before the hidden ones, giving what its public and hidden runs apart gave; its localization
found once, since every engine mutant of the course localizes to the same faults at every seed; and the slipped
engines computed only where a diagnosis asks for them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.core.exercise import Exercise
from grader.judge import grading, mistake_runs, session
from grader.judge.catalog import Catalog
from grader.judge.diagnose.faults import faults
from grader.judge.diagnose.localize import localize
from grader.judge.hidden_runs import group_part, join_parts, public_part_first
from grader.judge.names import definitions
from grader.run.inputs import draw_inputs
from grader.run.read.load import load_submission
from grader.run.sandbox import Group, Sandbox, probes_to_run

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Catalog(ROOT / "exercises")
SCALAR = [e for e in CATALOG.ids() if CATALOG.load(e).engine == "scalar"]
SEEDS = (0, 7, 123456789, 2**31 - 5)


@pytest.fixture(scope="module")
def sandbox() -> object:
    with Sandbox(hide=[CATALOG.root], lean=True) as box:
        yield box


@pytest.mark.slow
def test_every_engine_mutant_localizes_to_the_same_faults_at_every_seed(sandbox: Sandbox) -> None:
    """The premise of localizing a mutant once: were a mutant's faults to depend on the seed, this names it."""
    differ = []
    for exercise_id in SCALAR:
        exercise = CATALOG.load(exercise_id)
        for mutant in exercise.mutants:
            submission = load_submission(mutant.path)
            defined = definitions(submission.cells)
            found = set()
            for seed in SEEDS:
                located = localize(sandbox, submission, exercise, seed)
                found.add(frozenset((f.rule.method, f.rule.how)
                                    for f in faults(located, defined.grad_overwrites, defined.stepped))
                          if located is not None else None)
            if len(found) != 1:
                differ.append(f"{exercise_id}/{mutant.path.name}: {found}")
    assert SCALAR and not differ, differ


def _hidden_moved_up(exercise_id: str) -> Exercise:
    """The exercise with its hidden checks moved among the public ones (after the fifth): no shipped exercise keeps
    one there any more (tests/test_hidden_runs.py), but a course's may."""
    shipped = CATALOG.load(exercise_id)
    hidden = [p for p in shipped.probes if p.visibility == "hidden"]
    public = [p for p in shipped.probes if p.visibility != "hidden"]
    return dataclasses.replace(shipped, probes=(*public[:5], *hidden, *public[5:]))


@pytest.mark.parametrize("exercise_id", ["node-mul", "tiny-engine", "node-backward", "node-backward moved"])
def test_a_mutant_run_gives_what_its_public_and_hidden_runs_apart_gave(sandbox: Sandbox, exercise_id: str) -> None:
    exercise = _hidden_moved_up("node-backward") if exercise_id.endswith(" moved") else CATALOG.load(exercise_id)
    group = Group(exercise, draw_inputs(exercise, 99), 99)
    mistakes = mistake_runs.mistake_runs(sandbox, group, None)
    assert len(mistakes.mutants) == len(exercise.mutants)
    for found in mistakes.mutants:
        submission = load_submission(found.mutant.path)
        public, hidden = (sandbox.launch(submission, [group_part(group, side)]).result().groups[0]
                          for side in ("public", "hidden"))
        apart = join_parts(exercise, public, hidden)
        assert found.run is not None
        assert found.run.probes == apart.probes, found.mutant.path
        assert found.run.missing == apart.missing


def test_a_hidden_check_among_the_public_ones_is_kept_apart_for_mutants() -> None:
    """A hidden check before public ones (which must not meet the state it leaves) runs apart for a mistake too."""
    assert not public_part_first(_hidden_moved_up("node-backward"), "cpu")
    assert public_part_first(CATALOG.load("node-backward"), "cpu")
    assert public_part_first(CATALOG.load("node-mul"), "cpu")


def test_slipped_engines_are_computed_only_when_asked(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = mistake_runs.slip_runs

    def counted(*args: object) -> object:
        calls.append("slips")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(mistake_runs, "slip_runs", counted)
    exercise = CATALOG.load("node-mul")
    group = Group(exercise, draw_inputs(exercise, 5), 5)
    mistakes = mistake_runs.mistake_runs(sandbox, group, None)
    assert calls == []
    assert mistakes.slips() == mistakes.slips() and calls == ["slips"]


def test_a_file_that_only_raised_runs_no_known_mistake(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a seed of its own, a submission whose failed checks hold no values (it did not load) asks the known
    mistakes for nothing: none of them runs (a child each), and its report says what its error says; one with
    wrong values still runs them and is named by them."""
    launched: list[str] = []
    real = mistake_runs._run_one

    def counted(*args: object) -> object:
        launched.append("a mistake")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(mistake_runs, "_run_one", counted)
    exercise = CATALOG.load("node-mul")
    crashed = session.grade(ROOT / "submissions" / "node-mul" / "syntax_error.py", [exercise], seed=424242)
    assert crashed.score == 0 and launched == []
    wrong = session.grade(ROOT / "submissions" / "node-mul" / "swapped_slopes.py", [exercise], seed=424243)
    assert len(launched) == len(exercise.mutants)  # one `grade` keeps no cache: every mistake runs
    assert any(c.diagnosis is not None and c.diagnosis.mistake == "swapped-locals"
               for e in wrong.exercises for c in e.checks)


@pytest.mark.slow
def test_every_engine_and_tensor_mutant_fails_the_same_probes_at_every_seed(sandbox: Sandbox) -> None:
    """The premise of leaving out the mistakes that cannot fit (grader.judge.mistake_runs.Mistakes.could_fit): what a
    mistake fails at one seed, it fails at every seed, and nothing else. Were it to fail a probe only at some
    seeds, this names it (and a student at another seed could miss its name)."""
    from grader.judge.diagnose.matching import passes
    from grader.judge.oracle import expected_values

    differ = []
    for exercise_id in CATALOG.ids():
        exercise = CATALOG.load(exercise_id)
        if exercise.engine == "torch":
            continue
        on = probes_to_run(exercise, "cpu")
        failing: dict[str, list[frozenset[int]]] = {}
        for seed in SEEDS:
            group = Group(exercise, draw_inputs(exercise, seed), seed)
            expected = expected_values(exercise, group.inputs, seed=seed, torch_engine=False)
            for found in mistake_runs.mistake_runs(sandbox, group, None).mutants:
                failing.setdefault(found.mutant.mistake, []).append(frozenset(
                    i for i in on if found.run is None or (got := found.run.probes[i]) is None or not passes(
                        got, expected[i], exercise.probes[i].raises is not None, exercise.probes[i].tolerance)))
        differ += [f"{exercise_id}/{name}: {sorted(sets[0])} then {[sorted(s) for s in sets[1:]]}"
                   for name, sets in failing.items() if not all(sets[0] == s for s in sets[1:])]
    assert not differ, differ


@pytest.mark.slow
def test_leaving_out_the_mistakes_that_cannot_fit_changes_no_name(sandbox: Sandbox,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A submission at a seed of its own runs only the known mistakes that can fit it, once the process has seen
    every mistake of its exercise run; each check's diagnosis is the one every mistake's run gives."""
    ran: list[str] = []
    real = mistake_runs._run_one

    def counted(sandbox: Sandbox, mutant: object, group: Group, *rest: object) -> object:
        ran.append(f"{group.exercise.id}@{group.seed}")
        return real(sandbox, mutant, group, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(mistake_runs, "_run_one", counted)
    files = [*sorted((ROOT / "exercises" / "tiny-engine" / "mutants").glob("*.py")),
             *sorted((ROOT / "exercises" / "tensor-reduce" / "mutants").glob("*.py")),
             *(ROOT / "submissions" / "node-mul" / f"{name}.py" for name in ("swapped_slopes", "overwrite"))]
    graded: dict[Path, tuple[int, list[object]]] = {}

    Seen = dict[tuple[object, ...], dict[Path, frozenset[int]]]

    def grade_all(seen: Seen) -> Iterator[tuple[Path, int, list[object]]]:
        monkeypatch.setattr(mistake_runs, "_FAILING", seen)
        for number, path in enumerate(files):
            exercise = CATALOG.load(path.parent.parent.name if path.parent.name == "mutants" else path.parent.name)
            ran.clear()
            report = grading.grade_submission(sandbox, load_submission(path), [exercise], seed=1000 + number,
                                              mutant_cache={})
            yield path, len(ran), [(c.name, c.status, c.diagnosis, c.public_diagnosis)
                                   for e in report.exercises for c in e.checks]

    class Forgets(Seen):
        def __setitem__(self, key: tuple[object, ...], value: dict[Path, frozenset[int]]) -> None:
            return None  # every mistake runs, every time

    for path, count, checks in grade_all(Forgets()):
        graded[path] = (count, checks)
    left_out = 0
    for path, count, checks in grade_all({}):
        assert checks == graded[path][1], path
        left_out += graded[path][0] - count
    assert left_out > len(files)  # most files run fewer mistakes than there are


def test_what_a_mistake_failed_when_its_run_stopped_early_is_not_kept(sandbox: Sandbox,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A mistake whose run ran out of time (a loaded machine, a worker shared with a student's busy file) failed
    every check for the machine's sake: kept for the process's life, it would leave that mistake out of every
    later diagnosis of the exercise. Only a round of runs that all finished is kept."""
    from grader.judge.oracle import expected_values

    monkeypatch.setattr(mistake_runs, "_FAILING", {})
    exercise = CATALOG.load("node-mul")
    group = Group(exercise, draw_inputs(exercise, 5), 5)
    expected = tuple(expected_values(exercise, group.inputs, seed=5, torch_engine=False))
    starved = mistake_runs.Mistakes(group)
    runs = starved.could_fit(sandbox, 0.001, frozenset(), expected)
    assert len(runs) == len(exercise.mutants) and starved.stopped
    assert mistake_runs._FAILING == {}
    finished = mistake_runs.Mistakes(group)
    finished.could_fit(sandbox, None, frozenset(), expected)
    assert not finished.stopped
    kept = mistake_runs._FAILING[finished.files()]
    every_probe = frozenset(probes_to_run(exercise, "cpu"))
    assert set(kept) == {m.path for m in exercise.mutants}
    assert all(fails and fails < every_probe for fails in kept.values())  # each fails some checks, not all
