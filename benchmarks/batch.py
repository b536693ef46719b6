"""Grade generated classes with `grade batch`; compare with one fresh `python -m grader` per submission.

    python benchmarks/batch.py [--students 500] [--jobs 2] [--fresh 12] [--tensor-students 200]

The class mixes the scalar-engine exercises' correct samples, their mutants (buggy), broken samples
(syntax errors, os._exit, exceptions) and infinite loops, every file naming its own exercise. Memory
bombs stay out: each allocates up to its own limit, whatever the class's size, which would hide growth. Both
sides run with the same number of processes at once and the same time limit. The fresh-process
cost is measured on a sample of the submissions in this same run and scaled to the class. Peak
memory is the whole process tree's proportional set size (torch's pages, shared by every forked
process, counted once), sampled while it runs, for a class a fifth
the size and for the full class: flat means no growth with the number of submissions.
Target: at least 20x faster than fresh processes.

A second class, of tensor-exercise submissions (family C: the solutions, samples that score full
marks and the mutants, numpy only), is graded the same way; its time per submission is printed
beside the scalar class's (without its looping submissions, which the tensor class has none of).

The fresh-process cost is measured per kind (correct, buggy, crashing, looping) and weighted by the
class's own mix: a plain random sample of a dozen files almost never holds one of the few looping
ones, which cost the whole time limit. Because a looping submission burns its whole time limit on a
core in both modes, the class is also graded without them, and that ratio is printed too, with the
floor the looping ones alone put under any batch (their limits over the cores) and so the highest
ratio any grader could reach on the class. Engine exercises graded one at a time no longer import
torch (about 0.35 s a file), so the ratio is smaller than when every fresh process paid for torch;
the batch itself is faster and smaller than it was then.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ("node-add", "node-sub", "node-mul", "node-pow", "node-sigmoid", "node-relu", "node-backward", "tiny-engine")
TENSOR = ("tensor-elementwise", "tensor-broadcast", "tensor-reduce", "tensor-shape", "tensor-matmul", "tensor-backward",
          "softmax-cross-entropy", "mlp-step", "manual-backprop", "layer-backward")
TIME_LIMIT = "1"


def pools() -> dict[str, list[Path]]:
    """Sample files by kind; each names its exercise in its first line."""
    kinds: dict[str, list[Path]] = {"correct": [], "buggy": [], "crashing": [], "looping": []}
    for exercise in ENGINE:
        kinds["correct"].append(ROOT / "exercises" / exercise / "solution.py")
        kinds["buggy"] += sorted((ROOT / "exercises" / exercise / "mutants").glob("*.py"))
        for sample in sorted((ROOT / "submissions" / exercise).glob("*.py")):
            text = sample.read_text()
            if not text.startswith("# exercise:"):
                continue
            if "infinite" in sample.stem or "while True" in text:
                kinds["looping"].append(sample)
            elif sample.stem.startswith("correct"):
                kinds["correct"].append(sample)
            elif any(w in sample.stem for w in ("syntax", "exit", "exception", "recursion", "class")):
                kinds["crashing"].append(sample)
    return kinds


def make_class(folder: Path, size: int, seed: int = 0) -> None:
    kinds = pools()
    rng = random.Random(seed)
    mix = [("correct", 0.55), ("buggy", 0.30), ("crashing", 0.13), ("looping", 0.02)]
    folder.mkdir(parents=True)
    for i in range(size):
        kind = rng.choices([k for k, _ in mix], [w for _, w in mix])[0]
        shutil.copy(rng.choice(kinds[kind]), folder / f"student{i:04d}_{kind}.py")


def make_tensor_class(folder: Path, size: int, seed: int = 0) -> None:
    """Tensor-exercise submissions: 60% right (solutions and full-mark samples), 40% a known mistake."""
    correct, buggy = [], []
    for exercise in TENSOR:
        correct.append(ROOT / "exercises" / exercise / "solution.py")
        correct += [p for p in sorted((ROOT / "submissions" / exercise).glob("correct*.py"))]
        buggy += sorted((ROOT / "exercises" / exercise / "mutants").glob("*.py"))
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    for i in range(size):
        kind = "correct" if rng.random() < 0.6 else "buggy"
        shutil.copy(rng.choice(correct if kind == "correct" else buggy), folder / f"student{i:04d}_{kind}.py")


def kind_of(path: Path) -> str:
    return path.stem.rsplit("_", 1)[1]


def make_calm_class(folder: Path, size: int, seed: int = 0) -> None:
    """make_class without its looping submissions: each costs its whole time limit, the same in any grader,
    and would only add noise to a comparison of what grading costs."""
    make_class(folder, size, seed)
    for f in folder.iterdir():
        if kind_of(f) == "looping":
            f.unlink()


def tree_memory(pid: int) -> int:
    """Proportional set size (shared pages split between their users) of a process and its descendants."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    family, grew = {pid}, True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                grew = True
    total = 0
    for member in family:
        try:
            for line in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def run_batch(folder: Path, out: Path, jobs: int) -> tuple[float, int]:
    """Seconds and peak resident bytes of the whole tree."""
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", str(jobs),
               "--time-limit", TIME_LIMIT]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    peak = [0]

    def sample() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], tree_memory(process.pid))
            time.sleep(0.1)

    watcher = threading.Thread(target=sample)
    watcher.start()
    _, err = process.communicate()
    watcher.join()
    if process.returncode != 0:
        raise SystemExit(f"grade batch failed: {err.decode()[-2000:]}")
    return time.perf_counter() - started, peak[0]


def fresh_processes(files: list[Path], jobs: int) -> list[float]:
    """Wall seconds of `python -m grader FILE`, each in a fresh interpreter, `jobs` at a time."""
    def one(path: Path) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", str(path), "--time-limit", TIME_LIMIT, "--format", "json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, check=False)
        return time.perf_counter() - started

    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, files))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--fresh", type=int, default=4, help="submissions of each kind graded in fresh processes")
    parser.add_argument("--tensor-students", type=int, default=200, help="size of the tensor-exercise class")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        small, full = Path(scratch) / "small", Path(scratch) / "full"
        make_class(small, args.students // 5)
        make_class(full, args.students)
        small_seconds, small_peak = run_batch(small, Path(scratch) / "small-out", args.jobs)
        seconds, peak = run_batch(full, Path(scratch) / "out", args.jobs)
        files = sorted(full.iterdir())
        counts = {kind: sum(1 for f in files if kind_of(f) == kind) for kind in pools()}
        calm = Path(scratch) / "calm"  # the same class without its looping submissions
        calm.mkdir()
        for f in files:
            if kind_of(f) != "looping":
                shutil.copy(f, calm / f.name)
        calm_seconds, _ = run_batch(calm, Path(scratch) / "calm-out", args.jobs)
        tensor = Path(scratch) / "tensor"
        make_tensor_class(tensor, args.tensor_students)
        tensor_seconds, tensor_peak = run_batch(tensor, Path(scratch) / "tensor-out", args.jobs)
        tensor_fresh = statistics.mean(fresh_processes(random.Random(2).sample(sorted(tensor.iterdir()),
                                                                               min(args.fresh, args.tensor_students)),
                                                       args.jobs))
        rng = random.Random(1)
        per_kind = {}
        for kind, count in counts.items():
            of_kind = [f for f in files if kind_of(f) == kind]
            if count:
                per_kind[kind] = statistics.mean(fresh_processes(rng.sample(of_kind, min(args.fresh, count)),
                                                                 args.jobs))
    # the same parallelism as the batch
    fresh_total = sum(per_kind[k] * n for k, n in counts.items() if n) / args.jobs
    calm_total = sum(per_kind[k] * n for k, n in counts.items() if n and k != "looping") / args.jobs
    calm_count = sum(n for k, n in counts.items() if k != "looping")
    # A looping submission burns its whole time limit on a core in any grader: a floor under the batch.
    floor = counts["looping"] * float(TIME_LIMIT) / args.jobs
    print(f"{'measure':<58}{'value':>14}")
    rows = [
        (f"grade batch, {args.students} submissions, -j {args.jobs}", f"{seconds:.1f} s"),
        ("  throughput", f"{args.students / seconds:.1f} /s"),
        *((f"fresh `python -m grader`, {kind} ({counts[kind]} in the class)", f"{per_kind[kind]:.2f} s")
          for kind in per_kind),
        (f"  estimated for {args.students}, {args.jobs} at a time", f"{fresh_total:.0f} s"),
        ("  batch speed-up over fresh processes (target >= 20x)", f"{fresh_total / seconds:.1f}x"),
        (f"  looping ones alone: {counts['looping']} x {TIME_LIMIT} s of CPU over {args.jobs} cores", f"{floor:.1f} s"),
        ("  so the most any grader could reach on this class", f"{fresh_total / floor:.0f}x" if floor else "-"),
        (f"grade batch, the {calm_count} that do not loop", f"{calm_seconds:.1f} s"),
        (f"  fresh processes for them, {args.jobs} at a time (estimated)", f"{calm_total:.0f} s"),
        ("  batch speed-up without the looping submissions", f"{calm_total / calm_seconds:.1f}x"),
        (f"peak memory (PSS) of the process tree, {args.students // 5} submissions", f"{small_peak / 2**20:.0f} MiB"),
        (f"peak memory (PSS) of the process tree, {args.students} submissions", f"{peak / 2**20:.0f} MiB"),
        ("  ratio (flat: about 1)", f"{peak / small_peak:.2f}"),
        (f"grade batch, {args.students // 5} submissions", f"{small_seconds:.1f} s"),
        (f"grade batch, {args.tensor_students} tensor-exercise submissions, -j {args.jobs}", f"{tensor_seconds:.1f} s"),
        ("  per submission, tensor class", f"{1000 * tensor_seconds / args.tensor_students:.0f} ms"),
        (f"  per submission, scalar class without its looping ones ({calm_count})",
         f"{1000 * calm_seconds / calm_count:.0f} ms"),
        ("  fresh `python -m grader` per tensor submission", f"{tensor_fresh:.2f} s"),
        ("  tensor batch speed-up over fresh processes",
         f"{tensor_fresh * args.tensor_students / args.jobs / tensor_seconds:.1f}x"),
        ("peak memory (PSS) of the process tree, tensor class", f"{tensor_peak / 2**20:.0f} MiB"),
    ]
    for name, value in rows:
        print(f"{name:<58}{value:>14}")


if __name__ == "__main__":
    main()
