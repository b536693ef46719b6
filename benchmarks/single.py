"""Time one `grade` call against `python -c "import torch"`, and the per-submission fork-run-reply cost.

Both baselines are measured in this same run, on this machine:

    python benchmarks/single.py [--runs N]

Targets (issue 2): one `grade` call at most 1.3x `import torch`; fork-run-reply under 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"


def wall(command: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - started)
    return times


def in_process(runs: int) -> tuple[list[float], list[float]]:
    """Milliseconds per submission: the sandbox round trip alone, and the whole grade of one exercise."""
    sys.path.insert(0, str(ROOT))
    from grader.catalog import Catalog
    from grader.grading import grade_submission
    from grader.inputs import draw_inputs
    from grader.load import load_submission
    from grader.sandbox import Group, Sandbox

    exercise = Catalog(ROOT / "exercises").load("node-mul")
    submission = load_submission(SAMPLE)
    groups = [Group(exercise, draw_inputs(exercise, 0), 0)]
    round_trip, whole = [], []
    with Sandbox() as sandbox:
        for _ in range(3):  # warm caches
            sandbox.launch(submission, groups).result()
        for _ in range(runs):
            started = time.perf_counter()
            result = sandbox.launch(submission, groups).result()
            round_trip.append((time.perf_counter() - started) * 1000)
            assert result.stopped is None
        for seed in range(runs):
            started = time.perf_counter()
            graded = grade_submission(sandbox, submission, [exercise], seed=seed).exercises[0]
            whole.append((time.perf_counter() - started) * 1000)
            assert graded.score == graded.max_score
    return round_trip, whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    baseline = wall([sys.executable, "-c", "import torch"], args.runs)
    grading = wall([sys.executable, "-m", "grader", str(SAMPLE), "--exercise", "node-mul"], args.runs)
    ratio = statistics.median(grading) / statistics.median(baseline)
    round_trip, whole = in_process(max(args.runs * 5, 30))

    rows = [
        ("python -c 'import torch' (baseline)", f"{statistics.median(baseline):.3f} s", f"{min(baseline):.3f} s"),
        (f"grade {SAMPLE.name} (one CLI call)", f"{statistics.median(grading):.3f} s", f"{min(grading):.3f} s"),
        ("  ratio to the baseline (target <= 1.3)", f"{ratio:.2f}x", ""),
        ("fork + run + reply, node-mul (target < 50 ms)", f"{statistics.median(round_trip):.1f} ms",
         f"{min(round_trip):.1f} ms"),
        ("whole grade of one exercise, warm process", f"{statistics.median(whole):.1f} ms", f"{min(whole):.1f} ms"),
    ]
    print(f"{'measure':<48}{'median':>11}{'min':>11}")
    for name, median, low in rows:
        print(f"{name:<48}{median:>11}{low:>11}")

if __name__ == "__main__":
    main()
