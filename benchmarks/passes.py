"""Each diagnosis pass on the corpus: the names it made, how many were wrong, how many it withdrew,
and how many of its names reached the reports (a later pass can replace a name).

    python benchmarks/passes.py [--scalar-only | --tensor-only]

The corpus is the tests' (corpus/manifest.yaml, read by tests/test_corpus.py; corpus/tensor/, by
tests/test_tensor_corpus.py): real files nobody here wrote, each graded as the exercises its
manifest lists, at seed 0 on the CPU, through one sandbox, with grader.judge.diagnose.passes
tracing every change a pass makes to a check's diagnosis. A name is right where the manifest lists
it for that file and exercise (a scalar name as the manifest writes it, how@rule for a fault placed
in one rule; a tensor name by its mistake id). A pass whose names are often wrong, or always
replaced, is the one to look at first; black's preview features are judged the same way.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import test_corpus  # noqa: E402 - the corpus's manifest and truth, as the tests read them
import test_tensor_corpus  # noqa: E402

from grader.judge.catalog import Catalog  # noqa: E402
from grader.judge.diagnose.passes import PASSES, Change, tracing  # noqa: E402
from grader.judge.grading import ExpectedCache, grade_submission  # noqa: E402
from grader.judge.mistake_runs import MutantCache  # noqa: E402
from grader.judge.report import Diagnosis  # noqa: E402
from grader.run.read.load import load_submission  # noqa: E402
from grader.run.sandbox import Sandbox  # noqa: E402


@dataclass
class Tally:
    """One pass's figures over the corpus."""

    made: int = 0
    wrong: int = 0
    withdrawn: int = 0
    kept: int = 0
    #: of those kept, wrong ones: what the corpus tests hold at zero
    kept_wrong: int = 0
    #: "file as exercise: name" of each wrong name
    wrong_names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Graded:
    """One file graded as one exercise: where, what is right there, and how to write a name."""

    where: str
    allowed: frozenset[str]
    scalar: bool


def name_of(diagnosis: Diagnosis | None, scalar: bool) -> str | None:
    """The name a diagnosis gives, as the manifest writes it; None where it names nothing."""
    if diagnosis is None or diagnosis.kind == "unknown":
        return None
    return test_corpus.name_of(diagnosis) if scalar else diagnosis.mistake


def scalar_corpus(sandbox: Sandbox, caches: tuple[ExpectedCache, MutantCache]) -> Iterator[
    tuple[Graded, list[Change]]
]:
    for entry, exercise_id in test_corpus.pairs():
        catalog, name = test_corpus.catalog_of(exercise_id)
        real = test_corpus.truth(entry, exercise_id)
        allowed = frozenset().union(*(m.names for m in real))
        submission = load_submission(test_corpus.CORPUS / entry["file"])
        with tracing() as changes:
            grade_submission(sandbox, submission, [catalog.load(name)], seed=0, devices=("cpu",),
                             cache=caches[0], mutant_cache=caches[1])
        yield Graded(f"{entry['file']} as {exercise_id}", allowed, True), changes


def tensor_corpus(sandbox: Sandbox, caches: tuple[ExpectedCache, MutantCache]) -> Iterator[
    tuple[Graded, list[Change]]
]:
    catalog = Catalog(ROOT / "exercises")
    with tempfile.TemporaryDirectory() as folder:
        for entry in test_tensor_corpus.MANIFEST:
            path = Path(folder) / entry["file"]
            path.write_text(test_tensor_corpus.prepared(entry), encoding="utf-8")
            for exercise_id, verdict in entry["verdicts"].items():
                allowed = frozenset(name for names in verdict["mistakes"] for name in names)
                with tracing() as changes:
                    grade_submission(sandbox, load_submission(path), [catalog.load(exercise_id)],
                                     seed=0, devices=("cpu",), cache=caches[0], mutant_cache=caches[1])
                yield Graded(f"{entry['file']} as {exercise_id}", allowed, False), changes


def tally(found: Iterator[tuple[Graded, list[Change]]], tallies: dict[str, Tally]) -> int:
    """Add each grading's changes to its passes' tallies; how many gradings there were."""
    count = 0
    for graded, changes in found:
        count += 1
        # (exercise, check): the pass whose name stands, and the name
        last: dict[tuple[str, str], tuple[str, str]] = {}
        for exercise, step, check, before, after in changes:
            tally = tallies.setdefault(step, Tally())
            old, new = name_of(before, graded.scalar), name_of(after, graded.scalar)
            if new is None:
                tally.withdrawn += old is not None
                last.pop((exercise, check), None)
                continue
            if new == old:
                continue
            tally.made += 1
            last[exercise, check] = step, new
            if new not in graded.allowed:
                tally.wrong += 1
                tally.wrong_names.append(f"{graded.where}: {new}")
        for step, name in last.values():
            tallies[step].kept += 1
            tallies[step].kept_wrong += name not in graded.allowed
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--scalar-only", action="store_true", help="the engine and torch corpus")
    only.add_argument("--tensor-only", action="store_true", help="the tensor corpus")
    args = parser.parse_args()
    tallies: dict[str, Tally] = {}
    gradings = 0
    caches: tuple[ExpectedCache, MutantCache] = ({}, {})
    with Sandbox(lean=True, hide=[ROOT / "exercises"]) as sandbox:
        if not args.tensor_only:
            gradings += tally(scalar_corpus(sandbox, caches), tallies)
        if not args.scalar_only:
            gradings += tally(tensor_corpus(sandbox, caches), tallies)
    order = list(dict.fromkeys(step.name for passes in PASSES.values() for step in passes))
    kinds = Counter(step.name for passes in PASSES.values() for step in passes)
    print(f"{gradings} gradings; each pass's names (a name counts once per check it is given on)")
    print(f"{'pass':16} {'kinds':>5} {'made':>6} {'wrong':>6} {'withdrawn':>9} {'in reports':>10} "
          f"{'wrong there':>11}")
    for step in order:
        found = tallies.get(step, Tally())
        print(f"{step:16} {kinds[step]:>5} {found.made:>6} {found.wrong:>6} {found.withdrawn:>9} "
              f"{found.kept:>10} {found.kept_wrong:>11}")
    for step in order:
        for line in tallies.get(step, Tally()).wrong_names:
            print(f"  WRONG ({step})  {line}")


if __name__ == "__main__":
    main()
