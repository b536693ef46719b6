"""Peak memory of `grade batch -j 1` on a class with torch exercises, and what each process held at the peak.

    python benchmarks/memory.py [REV] [--students 40] [--torch-students 20] [--secret]

The class is benchmarks/batch.py's calm class (engine exercises) and benchmarks/hidden_runs.py's torch
submissions. The whole process tree's proportional set size (pages shared between processes split between
them: torch's libraries, mapped by every process that imports it, counted once) is sampled every 0.1 s; the
peak and each process's share at that moment are printed. With REV, `git archive REV` grades the same class
first (memory hardly depends on the machine's load, so one run each). Target: at or below nbgrader's 365 MB
on the same kind of class.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import ROOT, TIME_LIMIT, make_calm_class
from compare import checkout
from hidden_runs import make_torch_class

from grader.course.secret import write_new_secret


def family(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, grew = {pid}, True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in found and child not in found:
                found.add(child)
                grew = True
    return found


def pss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def role(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    if b"batch" in command:
        return "coordinator or worker"
    return "zygote or run" if any(b"zygote_main" in part for part in command) else "other"


def peak(source: Path, folder: Path, out: Path, secret: list[str]) -> tuple[float, list[tuple[float, str]], float]:
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", "1",
               "--time-limit", TIME_LIMIT, *secret]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(source)})
    best: tuple[float, list[tuple[float, str]]] = (0.0, [])
    while process.poll() is None:
        shares = [(pss_mib(pid), role(pid)) for pid in family(process.pid)]
        total = sum(share for share, _ in shares)
        if total > best[0]:
            best = (total, sorted(shares, reverse=True))
        time.sleep(0.1)
    if process.returncode != 0:
        raise SystemExit(f"grade batch from {source} failed ({process.returncode})")
    return best[0], best[1], time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", nargs="?")
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--torch-students", type=int, default=20)
    parser.add_argument("--secret", action="store_true", help="a seed per submission, from a course secret")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        make_calm_class(folder, args.students)
        make_torch_class(folder, args.torch_students)
        secret = ["--secret-file", str(write_new_secret(Path(scratch) / "secret").path)] if args.secret else []
        sides = ([(args.revision, checkout(args.revision, Path(scratch) / "before"))] if args.revision else []) + \
            [("this checkout", ROOT)]
        print(f"grade batch -j 1 of {len(list(folder.iterdir()))} submissions ({args.torch_students} torch), "
              f"{'a seed per submission' if args.secret else 'one seed'}, load {os.getloadavg()[0]:.1f}")
        for name, source in sides:
            total, shares, seconds = peak(source, folder, Path(scratch) / "out", secret)
            print(f"  {name:<16} peak PSS {total:5.0f} MiB ({seconds:.0f} s); at the peak: "
                  + ", ".join(f"{share:.0f} ({what})" for share, what in shares if share >= 1))


if __name__ == "__main__":
    main()
