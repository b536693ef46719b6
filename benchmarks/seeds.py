"""What a seed per submission costs a batch: the same class graded with one seed for all and with a course secret,
in alternation.

    python benchmarks/seeds.py [--students 200] [--pairs 3] [--jobs 2]

With one seed, a worker computes each exercise's expected values and runs its known mistakes once, for
every student; with a seed per submission (the course secret) it does both for each student who needs them.
The class is benchmarks/batch.py's, without its looping submissions (they wait out the time limit either way).
Prints each run's wall time and CPU time (the batch's whole process tree: workers, zygotes and children; this
process adopts the zygotes' orphans and reaps them, so that none of it is lost; a shared machine's load inflates
it far less than wall time), and the medians' ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import ROOT, TIME_LIMIT, make_calm_class
from hidden_runs import adopt_orphans, reap

from grader.course.secret import write_new_secret


def run(folder: Path, out: Path, jobs: int, seeding: list[str]) -> tuple[float, float]:
    shutil.rmtree(out, ignore_errors=True)
    used, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", str(jobs),
                    "--time-limit", TIME_LIMIT, *seeding], cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    reap()  # the zygotes' inits, orphaned when their zygote was killed, with all they reaped
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    adopt_orphans()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        make_calm_class(folder, args.students)
        count = len(list(folder.iterdir()))
        secret = write_new_secret(Path(scratch) / "secret")
        times: dict[str, list[tuple[float, float]]] = {"one seed": [], "seed per submission": []}
        ways = {"one seed": ["--seed", "0"], "seed per submission": ["--secret-file", str(secret.path)]}
        for pair in range(args.pairs):
            for name in (list(ways) if pair % 2 == 0 else list(reversed(ways))):
                times[name].append(run(folder, Path(scratch) / "out", args.jobs, ways[name]))
                wall, cpu = times[name][-1]
                print(f"pair {pair + 1}: {name:<20} {wall:6.1f} s wall {cpu:6.1f} s CPU "
                      f"(load {os.getloadavg()[0]:.1f})")
    print(f"\n{count} submissions, -j {args.jobs}:")
    for index, what in ((0, "wall"), (1, "CPU")):
        one, each = (statistics.median(t[index] for t in times[n]) for n in ways)
        print(f"  {what:<5} one seed {one:.1f} s ({one / count * 1000:.0f} ms each), seed per submission {each:.1f} s "
              f"({each / count * 1000:.0f} ms each); ratio {each / one:.2f}")


if __name__ == "__main__":
    main()
