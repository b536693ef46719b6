"""Real files nobody here wrote, graded as our exercises: every name the grader gives must be right.

corpus/ holds engines (karpathy/micrograd, its history and pull requests, course re-implementations),
dual-number classes and custom autograd Functions, each with its source and its truth judged by
reading it (corpus/manifest.yaml). Every file is graded as each exercise listed for it, all through
one sandbox, and the outcome is printed by family, the exercise's engine (scalar: engines of Node or
Value; torch: Functions and dual numbers): precision (names given that are right) and recall (real
mistakes, including methods a file lacks, that got a right name). No name may be wrong, a file right
in everything an exercise's probes use must score full marks on it, and a real mistake listed for an
exercise must cost points there (micrograd's _visited flag never reset fails node-backward). A mistake
another one hides from every check (`masked_by`: micrograd's first commit never seeds the output, and
its recursive walk without a visited set shows only once a probe seeds it) must be named too, from its
own localization probe; the names a report gives it count for precision like any other.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.judge.catalog import Catalog
from grader.judge.grading import ExpectedCache, grade_submission
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import Diagnosis, ExerciseResult
from grader.judge.uses import INTERFACE, exercise_uses
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
CATALOG = Catalog(ROOT / "exercises")
#: courses other than the repository's own, named in `graded` as `course/exercise`: the example micrograd course
#: allows numpy (its course.yaml), as Karpathy's lectures import it
COURSES = {"micrograd": Catalog(ROOT / "examples" / "courses" / "micrograd")}


def catalog_of(graded_as: str) -> tuple[Catalog, str]:
    course, _, exercise_id = graded_as.rpartition("/")
    return (COURSES[course] if course else CATALOG), exercise_id


@dataclass(frozen=True)
class Mistake:
    rule: str
    what: str
    names: frozenset[str]
    #: its effect on a check depends on chance (the order a set of nodes iterates in)
    sometimes: bool = False
    #: the mistake of the same file that hides it from every check (a missing seed zeroes every gradient): it is
    #: named from its own localization probe, with the other mended there, or not at all
    masked_by: str = ""


def entries() -> list[dict[str, Any]]:
    return list(yaml.safe_load((CORPUS / "manifest.yaml").read_text(encoding="utf-8"))["files"])


def truth(entry: dict[str, Any], exercise_id: str) -> list[Mistake]:
    """The real mistakes an exercise's checks can see: the file's own, and each method its probes call that it lacks."""
    found = [Mistake(m["rule"], m["what"], frozenset(m["names"]), m.get("seen") == "sometimes", m.get("masked_by", ""))
             for m in entry["mistakes"] if m["exercises"] == "all" or exercise_id in m["exercises"]]
    catalog, name = catalog_of(exercise_id)
    uses = exercise_uses(catalog.load(name)) or frozenset(INTERFACE)
    return found + [Mistake(name, f"no {name}", frozenset({f"missing@{name}"}))
                    for name in INTERFACE if name in entry["lacks"] and name in uses]


def name_of(diagnosis: Diagnosis) -> str:
    """A name as the manifest writes it: the mistake or pattern id, or how@rule for a fault located in one rule."""
    return f"{diagnosis.rule.how}@{diagnosis.rule.method}" if diagnosis.rule is not None else diagnosis.mistake


def names(result: ExerciseResult) -> set[str]:
    """Every name the report gives: on its failed checks, and the mistakes they hide (each from its own probe)."""
    return {name_of(c.diagnosis) for c in result.checks if c.diagnosis is not None and c.diagnosis.kind != "unknown"} \
        | masked_names(result)


def masked_names(result: ExerciseResult) -> set[str]:
    return {name_of(d) for d in result.masked}


def family(exercise_id: str) -> str:
    """scalar (an engine of Node or Value), or torch (a Function, dual numbers): the exercise's engine."""
    catalog, name = catalog_of(exercise_id)
    return catalog.load(name).engine


def pairs() -> Iterator[tuple[dict[str, Any], str]]:
    for entry in entries():
        for exercise_id in entry["graded"]:
            yield entry, exercise_id


@pytest.fixture(scope="module")
def graded() -> dict[tuple[str, str], ExerciseResult]:
    expected: ExpectedCache = {}
    mutants: MutantCache = {}
    results = {}
    with Sandbox(lean=True, hide=[ROOT / "exercises"]) as sandbox:
        for entry, exercise_id in pairs():
            submission = load_submission(CORPUS / entry["file"])
            catalog, name = catalog_of(exercise_id)
            graded = grade_submission(sandbox, submission, [catalog.load(name)], seed=0, devices=("cpu",),
                                      cache=expected, mutant_cache=mutants)
            results[entry["file"], exercise_id] = graded.exercises[0]
    return results


def test_the_corpus_is_real_files_with_their_sources_and_small_adapters() -> None:
    files = entries()
    assert len(files) >= 60
    assert {e["file"] for e in files} == {p.name for p in CORPUS.glob("*.py")}
    for entry in files:
        source = entry["source"]
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]) and source["repo"].count("/") == 1 and source["path"]
        adapter = entry["adapter"]
        assert adapter.count("\n") <= 2, f"{entry['file']}: an adapter is two lines at most"
        assert (CORPUS / entry["file"]).read_text(encoding="utf-8").endswith(adapter)
        assert entry["graded"] and all((catalog_of(e)[0].root / catalog_of(e)[1]).is_dir() for e in entry["graded"])
        assert set(entry["lacks"]) <= set(INTERFACE), entry["file"]
        for mistake in entry["mistakes"]:
            assert mistake["what"] and mistake["rule"] and isinstance(mistake["names"], list)


@pytest.mark.slow
def test_the_corpus_gets_no_wrong_name_and_correct_files_full_marks(
        graded: dict[tuple[str, str], ExerciseResult], capsys: pytest.CaptureFixture[str]) -> None:
    given: Counter[str] = Counter()
    right: Counter[str] = Counter()
    mistakes: Counter[str] = Counter()
    recalled: Counter[str] = Counter()
    masked = masked_named = 0
    wrong: list[str] = []
    unfair: list[str] = []
    unseen: list[str] = []
    hidden_unnamed: list[str] = []
    rows = []
    for entry, exercise_id in pairs():
        result = graded[entry["file"], exercise_id]
        kind = family(exercise_id)
        real = truth(entry, exercise_id)
        allowed = set().union(*(m.names for m in real))
        found = names(result)
        given[kind] += len(found)
        right[kind] += len(found & allowed)
        wrong += [f"{entry['file']} as {exercise_id}: {name}" for name in sorted(found - allowed)]
        mistakes[kind] += len(real)
        recalled[kind] += sum(1 for m in real if m.names & found)
        for m in real:
            if m.masked_by and m.names:  # the second of a masked pair: its own probe isolates it
                masked += 1
                masked_named += bool(m.names & found)
                if not m.names & found:
                    hidden_unnamed.append(f"{entry['file']} as {exercise_id}: {m.what}")
        if not real and result.score < result.max_score:
            lost = [c.name for c in result.checks if c.status in ("failed", "error")]
            unfair.append(f"{entry['file']} as {exercise_id}: {result.score}/{result.max_score}, lost {lost}")
        if any(not m.sometimes for m in real) and result.score >= result.max_score:
            unseen.append(f"{entry['file']} as {exercise_id}: full marks despite {[m.what for m in real]}")
        rows.append((entry["file"], exercise_id, result, sorted(found - masked_names(result)),
                     sorted(masked_names(result)), len(real)))
    with capsys.disabled():
        print(f"\ncorpus: {len(entries())} files, {len(rows)} gradings")
        for file, exercise_id, result, found, hidden, count in rows:
            print(f"  {file:32} {exercise_id:14} {result.score:>5g}/{result.max_score:<3g} {count} real, "
                  f"named {', '.join(found) or '-'}" + (f"; hidden behind them {', '.join(hidden)}" if hidden else ""))
        for line in wrong:
            print(f"  WRONG NAME  {line}")
        for line in unfair:
            print(f"  NOT FULL MARKS  {line}")
        for line in unseen:
            print(f"  MISSED BY THE CHECKS  {line}")
        for line in hidden_unnamed:
            print(f"  MASKED, NOT NAMED  {line}")
        for kind in sorted(given | mistakes):
            print(f"{kind}: precision {right[kind]}/{given[kind]}, recall {recalled[kind]}/{mistakes[kind]} "
                  f"({right[kind] / max(given[kind], 1):.3f} of the names given are right; "
                  f"{recalled[kind] / max(mistakes[kind], 1):.3f} of the real mistakes, methods a file lacks or left "
                  "unwritten included, got a right name)")
        print(f"masked: {masked_named}/{masked} mistakes hidden behind another in the same file named, each from its "
              "own localization probe")
    assert wrong == []
    assert unfair == []
    assert unseen == []  # every real mistake listed for an exercise costs points there
    assert hidden_unnamed == []  # the second mistake of each masked pair is named
