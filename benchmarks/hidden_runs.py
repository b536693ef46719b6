"""What running hidden checks apart costs per submission: the whole grading of each submission with every
check in one run, against the public checks and then the hidden ones apart (in the same child once all of the
public part has been taken, or in a child of their own where a public check follows a hidden one,
grader.judge.hidden_runs), interleaved submission by submission in one process.

    python benchmarks/hidden_runs.py [--students 120] [--torch-students 40] [--rounds 3]

The class is benchmarks/batch.py's (engine exercises, without its looping submissions, which only wait
out their time limit in both modes) and torch-exercise samples and solutions. For each submission both
ways are timed back to back, which one goes first alternating, `--rounds` times over the class (the
machine is shared: the load weighs on each the same), in wall time and in CPU time: this process's and
that of every process below it (the zygotes, and the children they reaped), from /proc, which a shared
machine's load inflates far less than wall time. The extra per submission is then set against a class's
batch per submission: `grade batch -j 1` of the same class, in this same run (its CPU time is the whole
process tree's). Target: the extra is under 5% of the batch's time per submission.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import ROOT, TIME_LIMIT, kind_of, make_calm_class

from grader.core.seeds import submission_seed
from grader.judge import grading, hidden_runs, mistake_runs
from grader.judge.catalog import Catalog
from grader.run.inputs import draw_inputs
from grader.run.read.load import Submission, load_submission
from grader.run.sandbox import Group, Sandbox

TORCH = ("first-gradient", "custom-sigmoid", "control-flow", "accumulation", "relu-network", "zero-grad-fix")


def make_torch_class(folder: Path, size: int, seed: int = 0) -> None:
    files = []
    for exercise in TORCH:
        files.append(ROOT / "exercises" / exercise / "solution.py")
        files += sorted((ROOT / "submissions" / exercise).glob("*.py"))
        files += sorted((ROOT / "exercises" / exercise / "mutants").glob("*.py"))
    rng = random.Random(seed)
    for i in range(size):
        shutil.copy(rng.choice(files), folder / f"student{i:04d}_torch.py")


def adopt_orphans() -> None:
    """Make this process the reaper of every process below it whose parent exits (a zygote's intermediate
    does), so that /proc shows them as its descendants and their CPU time reaches it when they are reaped."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def reap() -> None:
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def tree_cpu() -> float:
    """CPU seconds of this process and of every live process below it, with the children each has reaped."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            parents[int(entry)] = int(fields[1])
            ticks[int(entry)] = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    family, grew = {os.getpid()}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grew = True
    below = sum(ticks.get(pid, 0) for pid in family if pid != os.getpid())
    return time.process_time() + below / os.sysconf("SC_CLK_TCK")


def grade_one(sandbox: Sandbox, submission: Submission, groups: list[Group], caches: tuple[dict, dict],
              apart: bool) -> None:
    """The whole grading of one submission, as a batch worker does it (expected values and known mistakes
    kept per exercise and seed); with `apart` False, as before hidden checks ran apart: every check in one
    run (the grader's own switch, set here only)."""
    grading.has_hidden_part = hidden_runs.has_hidden_part = mistake_runs.has_hidden_part = \
        _HAS_HIDDEN if apart else (lambda groups, device: False)
    grading.grade_submission(sandbox, submission, [g.exercise for g in groups], seed=groups[0].seed, devices=("cpu",),
                             time_limit=float(TIME_LIMIT), cache=caches[0], mutant_cache=caches[1])


_HAS_HIDDEN = hidden_runs.has_hidden_part


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=120)
    parser.add_argument("--torch-students", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed-per-submission", action="store_true",
                        help="each submission's own seed, as with a course secret (nothing kept between students)")
    args = parser.parse_args()
    catalog = Catalog(ROOT / "exercises")
    adopt_orphans()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        make_calm_class(folder, args.students)
        make_torch_class(folder, args.torch_students)
        work = []
        for path in sorted(folder.iterdir()):
            submission = load_submission(path)
            exercise = catalog.load(submission.declared_exercise or "")
            seed = submission_seed(b"benchmark secret, 32 bytes long!", path.read_bytes()).seed \
                if args.seed_per_submission else 0
            work.append((kind_of(path), submission, [Group(exercise, draw_inputs(exercise, seed), seed)]))
        seconds: dict[str, dict[str, float]] = {}
        cpu: dict[str, float] = {"together": 0.0, "apart": 0.0}
        caches: tuple[dict, dict] = ({}, {})
        with Sandbox(hide=[catalog.root]) as sandbox:
            for _, submission, groups in work:  # warm the zygotes, and the expected values and mistakes kept
                grade_one(sandbox, submission, groups, caches, True)
                grade_one(sandbox, submission, groups, caches, False)
            for round_ in range(args.rounds):
                for i, (kind, submission, groups) in enumerate(work):
                    order = [("together", False), ("apart", True)]
                    for name, way in order if (i + round_) % 2 else reversed(order):
                        before, started = tree_cpu(), time.perf_counter()
                        grade_one(sandbox, submission, groups, ({}, {}) if args.seed_per_submission else caches, way)
                        spent = seconds.setdefault(kind, {}).setdefault(name, 0.0)
                        seconds[kind][name] = spent + time.perf_counter() - started
                        cpu[name] += tree_cpu() - before
        reap()  # the zygotes, and all they reaped
        out = Path(scratch) / "out"
        used, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "-j", "1",
                        "--time-limit", TIME_LIMIT], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        batch = (time.perf_counter() - started) / len(work)
        reap()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        batch_cpu = (after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) / len(work)
    counts = {kind: sum(1 for k, _, _ in work if k == kind) for kind in seconds}
    print(f"{'submissions':<14}{'n':>5}{'one run (ms)':>15}{'apart (ms)':>13}{'extra (ms)':>13}{'ratio':>8}")
    for kind, times in sorted(seconds.items()):
        n = counts[kind] * args.rounds
        one, two = times["together"] / n * 1000, times["apart"] / n * 1000
        print(f"{kind:<14}{counts[kind]:>5}{one:>15.1f}{two:>13.1f}{two - one:>13.1f}{two / one:>8.2f}")
    n = len(work) * args.rounds
    extra = (sum(t["apart"] for t in seconds.values()) - sum(t["together"] for t in seconds.values())) / n
    extra_cpu = (cpu["apart"] - cpu["together"]) / n
    print(f"\nwall: extra per submission {extra * 1000:.1f} ms; grade batch -j 1 per submission {batch * 1000:.1f} ms; "
          f"extra / batch {extra / batch:.1%} (target < 5%)")
    print(f"CPU:  extra per submission {extra_cpu * 1000:.1f} ms (one run {cpu['together'] / n * 1000:.1f} ms); "
          f"grade batch -j 1 per submission {batch_cpu * 1000:.1f} ms; extra / batch {extra_cpu / batch_cpu:.1%}")
    print(f"median per-kind ratio: {statistics.median(t['apart'] / t['together'] for t in seconds.values()):.2f}")


if __name__ == "__main__":
    main()
