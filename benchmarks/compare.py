"""Grade the same generated class with an earlier revision and with this checkout, in alternation.

    python benchmarks/compare.py REV [--students 500] [--pairs 3] [--jobs 2] [--loops]

A shared machine's speed drifts by tens of percent within minutes, so a figure from another session
says little: this runs `grade batch` from `git archive REV` and from the working tree one after the
other, `--pairs` times, and prints each run's wall time and the whole machine's busy CPU time
(/proc/stat: kernel work on the batch's behalf counts too), then the medians' ratios, and the median of
what grading a correct submission took (each correct student's report's `seconds`: its runs, expected values
and checks, with every protection of that revision on). The class is benchmarks/batch.py's, without its
looping submissions unless --loops: they wait out the time limit on both sides and only blur the comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import ROOT, TIME_LIMIT, kind_of, make_class


def busy_seconds() -> float:
    """CPU time the whole machine has spent busy (user, nice, system, irq, softirq)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def checkout(revision: str, into: Path) -> Path:
    """The revision's files, as `git archive` gives them (a clean tree: no build, no caches)."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def correct_seconds(out: Path) -> list[float]:
    """Each correct submission's grading time, from its report."""
    return [float(json.loads(report.read_text())["seconds"]) for report in out.glob("students/*/report.json")
            if kind_of(report.parent) == "correct"]


def run(source: Path, folder: Path, out: Path, jobs: int) -> tuple[float, float, float]:
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", str(jobs),
               "--time-limit", TIME_LIMIT]
    busy, started = busy_seconds(), time.perf_counter()
    done = subprocess.run(command, cwd=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall, cpu = time.perf_counter() - started, busy_seconds() - busy
    if done.returncode != 0:
        raise SystemExit(f"grade batch from {source} failed: {done.stderr.decode()[-2000:]}")
    return wall, cpu, statistics.median(correct_seconds(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--loops", action="store_true", help="keep the looping submissions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        make_class(folder, args.students)
        if not args.loops:
            for path in folder.iterdir():
                if kind_of(path) == "looping":
                    path.unlink()
        count = len(list(folder.iterdir()))
        sides = {args.revision: checkout(args.revision, Path(scratch) / "before"), "this checkout": ROOT}
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in sides}
        print(f"grade batch of {count} submissions, -j {args.jobs}, {args.pairs} pairs in alternation")
        for _ in range(args.pairs):
            for name, source in sides.items():
                wall, cpu, correct = run(source, folder, Path(scratch) / "out", args.jobs)
                times[name].append((wall, cpu, correct))
                print(f"  {name:<20} {wall:6.2f} s wall {cpu:7.2f} s busy CPU  a correct one {correct * 1000:5.0f} ms "
                      f"(load {os.getloadavg()[0]:.1f})")
    before, now = times[args.revision], times["this checkout"]
    for index, what in ((0, "wall"), (1, "busy CPU"), (2, "correct submission")):
        old, new = statistics.median(t[index] for t in before), statistics.median(t[index] for t in now)
        print(f"median {what}: {old:.2f} s -> {new:.2f} s, this checkout takes {new / old:.2f}x")


if __name__ == "__main__":
    main()
