"""What a seed per submission costs a batch: the same class graded with one seed for all and with a course secret,
in alternation.

    python benchmarks/seeds.py [--students 200] [--pairs 3] [--jobs 2]

With one seed, a worker computes each exercise's expected values and runs its known mistakes once, for
every student; with a seed per submission (the course secret) it does both for each student who needs them.
The class is benchmarks/batch.py's, without its looping submissions (they wait out the time limit either way).
Prints each run's wall time and the medians' ratio.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import ROOT, TIME_LIMIT, make_calm_class

from grader.course.secret import write_new_secret


def run(folder: Path, out: Path, jobs: int, seeding: list[str]) -> float:
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", str(jobs),
                    "--time-limit", TIME_LIMIT, *seeding], cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        make_calm_class(folder, args.students)
        count = len(list(folder.iterdir()))
        secret = write_new_secret(Path(scratch) / "secret")
        times: dict[str, list[float]] = {"one seed": [], "seed per submission": []}
        ways = {"one seed": ["--seed", "0"], "seed per submission": ["--secret-file", str(secret.path)]}
        for pair in range(args.pairs):
            for name in (list(ways) if pair % 2 == 0 else list(reversed(ways))):
                times[name].append(run(folder, Path(scratch) / "out", args.jobs, ways[name]))
                print(f"pair {pair + 1}: {name:<20} {times[name][-1]:6.1f} s")
    one, each = (statistics.median(times[n]) for n in ways)
    print(f"\n{count} submissions, -j {args.jobs}: one seed {one:.1f} s ({one / count * 1000:.0f} ms each), "
          f"seed per submission {each:.1f} s ({each / count * 1000:.0f} ms each); ratio {each / one:.2f}")


if __name__ == "__main__":
    main()
