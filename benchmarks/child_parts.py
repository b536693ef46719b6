"""What the hidden checks' hand-over costs a correct submission: one child of every check; the public part and
then the hidden part in one child (a two-part run, grader.run.sandbox.TwoPartRun); and a public child, then a
hidden one replaying the public checks (where a public check follows a hidden one); interleaved in one process.

    python benchmarks/child_parts.py [--rounds 15]

The engine exercises' solutions, each at a fresh seed every round; medians of wall time per submission.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from grader.judge.catalog import Catalog
from grader.judge.hidden_runs import loaded_groups, run_hidden_part
from grader.run.inputs import draw_inputs
from grader.run.read.load import load_submission
from grader.run.sandbox import Group, Sandbox

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ("node-mul", "node-add", "node-sigmoid", "tiny-engine")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    catalog = Catalog(ROOT / "exercises")
    solutions = [(catalog.load(e), load_submission(ROOT / "exercises" / e / "solution.py")) for e in EXERCISES]
    seconds: dict[str, list[float]] = {"one child": [], "public then hidden": [], "two children": []}
    with Sandbox(hide=[catalog.root], lean=True) as sandbox:
        for round_ in range(args.rounds + 1):  # the first warms up
            for exercise, solution in solutions:
                groups = [Group(exercise, draw_inputs(exercise, round_), round_)]
                for way in (list(seconds) if round_ % 2 else list(reversed(seconds))):
                    started = time.perf_counter()
                    if way == "one child":
                        sandbox.start(solution, groups).results()
                    elif way == "public then hidden":
                        two_parts = sandbox.launch_two_parts(solution, groups, hidden_groups=loaded_groups)
                        two_parts.public()
                        two_parts.hidden()
                    else:
                        public = sandbox.start(solution, groups, visibility="public").results()
                        run_hidden_part(sandbox, solution, groups, "cpu", None, public)
                    if round_:
                        seconds[way].append(time.perf_counter() - started)
    for way, found in seconds.items():
        print(f"{way:<20} median {statistics.median(found) * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
