"""Time one `grade` call against `python -c "import torch"`, and the per-submission fork-run-reply cost.

Both baselines are measured in this same run, on this machine:

    python benchmarks/single.py [--runs N]

Targets: one `grade` call at most 1.3x `import torch`, a torch exercise at most 1.1x; fork-run-reply
under 50 ms; a notebook costs no more than the same code as a .py file plus the time to read the
notebook. The CLI calls are interleaved, round by round. A torch exercise is timed from a released
pack (what students run: its expected values are stored, so the grading process never imports torch)
and from the course's checkout, where the solution is the oracle: its first run imports torch here
while the zygote does too (both at once), and keeps the values (grader.judge.expected_cache) for the next
runs, which cost what a pack's do. That first run is timed too, with the cache off.
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
SAMPLE = ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"
TORCH_SAMPLE = ROOT / "submissions" / "first-gradient" / "correct_float32.py"


def wall(commands: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, list[float]]:
    """Seconds per call of each command, interleaved round by round, so that the machine's load (shared, noisy)
    weighs on each the same."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, env) in commands.items():
            started = time.perf_counter()
            subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                           env={**os.environ, **env})
            times[name].append(time.perf_counter() - started)
    return times


def in_process(runs: int) -> tuple[list[float], list[float]]:
    """Milliseconds per submission: the sandbox round trip alone, and the whole grade of one exercise."""
    sys.path.insert(0, str(ROOT))
    from grader.judge.catalog import Catalog
    from grader.judge.grading import grade_submission
    from grader.run.inputs import draw_inputs
    from grader.run.read.load import load_submission
    from grader.run.sandbox import Group, Sandbox

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


def notebook_vs_python(runs: int) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds to load and grade the same code as a .py and as a notebook, and to read the notebook."""
    import tempfile

    import nbformat

    from grader.judge.catalog import Catalog
    from grader.judge.grading import grade_submission
    from grader.run.read.load import load_submission
    from grader.run.sandbox import Sandbox

    exercise = Catalog(ROOT / "exercises").load("node-mul")
    with tempfile.TemporaryDirectory() as folder:
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_markdown_cell("# node-mul"), nbformat.v4.new_code_cell(SAMPLE.read_text())]
        ipynb = Path(folder) / "same_code.ipynb"
        nbformat.write(notebook, ipynb)
        as_py, as_notebook, reading = [], [], []
        with Sandbox() as sandbox:
            for path, times in [(SAMPLE, as_py), (ipynb, as_notebook)] * (runs + 2):
                started = time.perf_counter()
                graded = grade_submission(sandbox, load_submission(path), [exercise], seed=0)
                times.append((time.perf_counter() - started) * 1000)
                assert graded.exercises[0].score == exercise.points
            for _ in range(runs):
                started = time.perf_counter()
                load_submission(ipynb)
                reading.append((time.perf_counter() - started) * 1000)
    return as_py[2:], as_notebook[2:], reading  # the first two of each warm the caches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    grade = [sys.executable, "-m", "grader", str(TORCH_SAMPLE), "--exercise", "first-gradient"]
    with tempfile.TemporaryDirectory() as pack, tempfile.TemporaryDirectory() as cache:
        subprocess.run([sys.executable, "-m", "grader", "release", "first-gradient", "--out", pack], check=True,
                       cwd=ROOT, stdout=subprocess.DEVNULL)
        kept = {"AUTOGRADER_CACHE": cache}
        subprocess.run(grade, check=False, cwd=ROOT, stdout=subprocess.DEVNULL, env={**os.environ, **kept})
        times = wall({
            "baseline": ([sys.executable, "-c", "import torch"], {}),
            "grading": ([sys.executable, "-m", "grader", str(SAMPLE), "--exercise", "node-mul"], kept),
            "packed": ([*grade, "--exercises", str(Path(pack) / "exercises")], kept),
            "course": (grade, kept),
            "course_cold": (grade, {"AUTOGRADER_CACHE": "off"}),
        }, args.runs)
    baseline, grading, packed, course, cold = (times[k] for k in ("baseline", "grading", "packed", "course",
                                                                   "course_cold"))
    ratio = statistics.median(grading) / statistics.median(baseline)
    round_trip, whole = in_process(max(args.runs * 5, 30))
    as_py, as_notebook, reading = notebook_vs_python(max(args.runs * 5, 30))

    rows = [
        ("python -c 'import torch' (baseline)", f"{statistics.median(baseline):.3f} s", f"{min(baseline):.3f} s"),
        (f"grade {SAMPLE.name} (one CLI call)", f"{statistics.median(grading):.3f} s", f"{min(grading):.3f} s"),
        ("  ratio to the baseline (target <= 1.3)", f"{ratio:.2f}x", ""),
        ("grade a torch exercise, from a released pack", f"{statistics.median(packed):.3f} s", f"{min(packed):.3f} s"),
        ("  ratio to the baseline (target <= 1.1)", f"{statistics.median(packed) / statistics.median(baseline):.2f}x",
         ""),
        ("grade a torch exercise, from the course", f"{statistics.median(course):.3f} s", f"{min(course):.3f} s"),
        ("  ratio to the baseline (target <= 1.1)", f"{statistics.median(course) / statistics.median(baseline):.2f}x",
         ""),
        ("  the same, its first run (no values kept)", f"{statistics.median(cold):.3f} s", f"{min(cold):.3f} s"),
        ("  ratio to the baseline", f"{statistics.median(cold) / statistics.median(baseline):.2f}x", ""),
        ("fork + run + reply, node-mul (target < 50 ms)", f"{statistics.median(round_trip):.1f} ms",
         f"{min(round_trip):.1f} ms"),
        ("whole grade of one exercise, warm process", f"{statistics.median(whole):.1f} ms", f"{min(whole):.1f} ms"),
        ("the same code as a .py: load + grade", f"{statistics.median(as_py):.1f} ms", f"{min(as_py):.1f} ms"),
        ("the same code as a notebook: load + grade", f"{statistics.median(as_notebook):.1f} ms",
         f"{min(as_notebook):.1f} ms"),
        ("  of which reading the notebook", f"{statistics.median(reading):.1f} ms", f"{min(reading):.1f} ms"),
        ("  notebook - .py - reading (target <= 0)",
         f"{statistics.median(as_notebook) - statistics.median(as_py) - statistics.median(reading):+.1f} ms", ""),
    ]
    print(f"{'measure':<48}{'median':>11}{'min':>11}")
    for name, median, low in rows:
        print(f"{name:<48}{median:>11}{low:>11}")

if __name__ == "__main__":
    main()
