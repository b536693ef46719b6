"""Run the CUDA checks of every exercise in one go and print a table; for machines with a GPU.

    python benchmarks/gpu_check.py [--seeds N]

For each exercise: the expected values recomputed on CUDA (the reference's torch engine, or the
solution) against the CPU float64 ones, and the solution graded through the sandbox with its
CUDA checks on. Columns: exercise, device, checks passed / failed / skipped, and the largest
absolute and relative difference from the CPU float64 expectation. Exits 1 if anything failed.
Without CUDA it says so, prints the CPU rows, and exits 0.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.core.exercise import Exercise  # noqa: E402
from grader.core.values import Array, ErrorInfo, Number, Seq, Value  # noqa: E402
from grader.judge.catalog import Catalog  # noqa: E402 - after the path is set
from grader.judge.devices import cuda_available  # noqa: E402
from grader.judge.grading import grade_submission  # noqa: E402
from grader.judge.oracle import expected_values  # noqa: E402
from grader.run.inputs import draw_inputs  # noqa: E402
from grader.run.read.load import load_submission  # noqa: E402
from grader.run.sandbox import Sandbox  # noqa: E402


def differences(want: Value, got: Value) -> list[tuple[float, float]]:
    """(absolute, relative) differences of every number in two values of the same shape."""
    if isinstance(want, Number) and isinstance(got, Number):
        pairs = [(want.value, got.value)]
    elif isinstance(want, Array) and isinstance(got, Array) and want.shape == got.shape:
        pairs = list(zip(want.data, got.data, strict=True))
    elif isinstance(want, Seq) and isinstance(got, Seq) and len(want.items) == len(got.items):
        return [d for a, b in zip(want.items, got.items, strict=True) for d in differences(a, b)]
    else:
        return []
    return [(abs(a - b), abs(a - b) / max(abs(a), 1e-12)) for a, b in pairs if math.isfinite(a) and math.isfinite(b)]


def oracle_gap(exercise: Exercise, seeds: range) -> tuple[float, float]:
    worst_abs = worst_rel = 0.0
    for seed in seeds:
        inputs = draw_inputs(exercise, seed)
        cpu = expected_values(exercise, inputs, seed=seed)
        cuda = expected_values(exercise, inputs, seed=seed, device="cuda")
        for i, probe in enumerate(exercise.probes):
            if exercise.engine == "torch" and "cuda" not in probe.devices:
                continue
            want, got = cpu[i].observations, cuda[i].observations
            if isinstance(want, ErrorInfo) or isinstance(got, ErrorInfo):
                continue
            for label, value in want.items():
                for a, r in differences(value, got[label]):
                    worst_abs, worst_rel = max(worst_abs, a), max(worst_rel, r)
    return worst_abs, worst_rel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    exercises = Catalog(ROOT / "exercises").load_all()
    failed = 0
    with Sandbox() as sandbox:
        has_cuda = cuda_available()
        if not has_cuda:
            print("CUDA is not available here: the CUDA rows are skipped; the CPU rows still run.\n")
        print(f"{'exercise':<18}{'device':<8}{'passed':>7}{'failed':>7}{'skipped':>8}"
              f"{'max abs err':>14}{'max rel err':>14}")
        for exercise in exercises:
            if exercise.solution is None:
                continue
            result = grade_submission(sandbox, load_submission(exercise.solution), [exercise], seed=0).exercises[0]
            for device in ("cpu", "cuda"):
                checks = [c for c in result.checks if c.name.endswith("[cuda]") == (device == "cuda")]
                if not checks:
                    continue
                passed = sum(c.status == "passed" for c in checks)
                bad = sum(c.status in ("failed", "error") for c in checks)
                skipped = sum(c.status == "skipped" for c in checks)
                failed += bad
                gap = "-"
                if device == "cuda" and has_cuda:
                    worst_abs, worst_rel = oracle_gap(exercise, range(args.seeds))
                    gap = f"{worst_abs:>14.2e}{worst_rel:>14.2e}"
                print(f"{exercise.id:<18}{device:<8}{passed:>7}{bad:>7}{skipped:>8}{gap:>14}")
            if has_cuda and exercise.engine == "scalar":
                worst_abs, worst_rel = oracle_gap(exercise, range(args.seeds))
                print(f"{exercise.id:<18}{'cuda*':<8}{'':>7}{'':>7}{'':>8}{worst_abs:>14.2e}{worst_rel:>14.2e}")
    if has_cuda:
        print("\ncuda* = the torch engine oracle on CUDA against the reference engine (scalar exercises)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
