"""A zygote's warm-up and one run of a child, by an earlier revision and by this checkout, in alternation.

    python benchmarks/child_ab.py REV [--rounds 5] [--runs 20]

Each round starts a fresh process per side (`git archive REV`, then this working tree, or the other way round on
odd rounds) that times: the engine zygote's warm-up (from entering the sandbox to its hello), `--runs` fork-run-
reply round trips of a correct node-mul, the torch zygote's warm-up and a few runs of custom-sigmoid (gradcheck, the
evidence recorder). It prints each side's medians over rounds and this checkout's ratio to REV's: the machine is
shared and noisy, so only the interleaved ratio means anything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import checkout  # the benchmarks folder is not a package: found by the path above

ROOT = Path(__file__).resolve().parent.parent
PROBE = r"""
import json, statistics, sys, time
from pathlib import Path
from grader.judge.catalog import Catalog
from grader.run.inputs import draw_inputs
try:
    from grader.run.read.load import load_submission
except ImportError:  # a checkout from before the package was laid out in rooms
    from grader.run.load import load_submission
from grader.run.sandbox import Group, Sandbox, policy_of

root, samples, runs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
catalog = Catalog(root / "exercises")


def measure(exercise_id, sample, count):
    exercise = catalog.load(exercise_id)
    groups = [Group(exercise, draw_inputs(exercise, 0), 0)]
    submission = load_submission(samples / sample)
    started = time.perf_counter()
    with Sandbox(first=policy_of(exercise), hide=[catalog.root]) as sandbox:
        while sandbox.warming():
            time.sleep(0.0005)
        warm = time.perf_counter() - started
        sandbox.launch(submission, groups).result()
        trips = []
        for _ in range(count):
            begun = time.perf_counter()
            sandbox.launch(submission, groups).result()
            trips.append(time.perf_counter() - begun)
    return warm, statistics.median(trips)


engine = measure("node-mul", "node-mul/correct_lesson_style.py", runs)
torch = measure("custom-sigmoid", "custom-sigmoid/stable_recompute.py", max(runs // 5, 3))
print(json.dumps({"engine_warm": engine[0], "engine_run": engine[1], "torch_warm": torch[0], "torch_run": torch[1]}))
"""


def side(tree: Path, runs: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(tree), str(ROOT / "submissions"), str(runs)], cwd=tree,
                          capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(tree)})
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        before = checkout(args.revision, Path(folder) / "before")
        trees = {"before": before, "after": ROOT}
        seen: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for index in range(args.rounds):
            for name in (("before", "after") if index % 2 == 0 else ("after", "before")):
                seen[name].append(side(trees[name], args.runs))
    print(f"{'':22}{'before (' + args.revision[:10] + ')':>22}{'after (this tree)':>20}{'after/before':>14}")
    for key, label, unit in [("engine_warm", "engine zygote warm-up", 1000), ("engine_run", "engine run", 1000),
                             ("torch_warm", "torch zygote warm-up", 1000), ("torch_run", "torch run", 1000)]:
        old = statistics.median(r[key] for r in seen["before"]) * unit
        new = statistics.median(r[key] for r in seen["after"]) * unit
        print(f"{label:22}{old:>19.1f} ms{new:>17.1f} ms{new / old:>13.2f}x")


if __name__ == "__main__":
    main()
