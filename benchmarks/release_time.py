"""Time `grade release` of a pair of exercises, the way an instructor runs it: a fresh process and an empty cache.

    python benchmarks/release_time.py [--rounds 3] [--python OTHER/.venv/bin/python] [EXERCISE ...]

Each round runs `grade release` once with this checkout's interpreter and once with each `--python` (another
checkout's, e.g. main's, for a before/after), interleaved so that the machine's load falls on both alike,
each with its own empty $AUTOGRADER_CACHE. Prints every run's wall time and the medians, and the load average.
Default exercises: zero-grad-fix (torch, six known mistakes that run training loops) and mlp-step.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one(python: str, exercises: list[str]) -> float:
    with tempfile.TemporaryDirectory(prefix="release-time-") as scratch:
        env = {**os.environ, "AUTOGRADER_CACHE": str(Path(scratch) / "cache"),
               "AUTOGRADER_EXERCISES": str(ROOT / "exercises")}
        started = time.perf_counter()
        subprocess.run([python, "-m", "grader", "release", *exercises, "--out", str(Path(scratch) / "pack")],
                       env=env, cwd=scratch, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", default=["zero-grad-fix", "mlp-step"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", action="append", default=[], help="another checkout's interpreter")
    args = parser.parse_args()
    pythons = {"this checkout": sys.executable, **{p: p for p in args.python}}
    times: dict[str, list[float]] = {name: [] for name in pythons}
    print(f"grade release {' '.join(args.exercises)}; load average {os.getloadavg()[0]:.1f}")
    for round_ in range(args.rounds):
        order = list(pythons) if round_ % 2 == 0 else list(reversed(pythons))
        for name in order:
            times[name].append(one(pythons[name], args.exercises))
            print(f"  round {round_ + 1}, {name}: {times[name][-1]:.1f} s", flush=True)
    for name, found in times.items():
        print(f"{name}: median {statistics.median(found):.1f} s ({', '.join(f'{t:.1f}' for t in found)})")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
