"""Library courses: one repository graded whole against `import numpy` alone, and a class of repositories batched.

    python benchmarks/library.py [--rounds 5] [--students 100] [--jobs 2] [--course needle-hw1]

First, `grade REPO --exercises COURSE` (a fresh process: the grader, the course's reference and every exercise
of the course, the student's package imported in a child) and `python -c "import numpy"` are timed in turns,
interleaved round by round so that the machine's load falls on both alike. The target: a repository graded whole
takes at most a few seconds beyond importing numpy. Then a class of `--students` repositories, copies of the
course's reference, its starter and its known mistakes (each a one-function patch of the reference) in turn, is
graded with `grade batch -j JOBS`, and its time is printed, per repository too.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.judge.catalog import Catalog  # noqa: E402 - the repository's grader, not an installed one
from grader.judge.library.repositories import patched  # noqa: E402


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-400:]}")
    return time.perf_counter() - started


def one_repository(course: Path, rounds: int) -> None:
    catalog = Catalog(course)
    library = catalog.library()
    assert library is not None and library.reference is not None
    grade = [sys.executable, "-m", "grader", str(library.reference), "--exercises", str(course)]
    numpy = [sys.executable, "-c", "import numpy"]
    timed(grade)  # the course's expected values into the user's store, as on any machine after its first grade
    graded, imported = [], []
    for _ in range(rounds):
        graded.append(timed(grade))
        imported.append(timed(numpy))
    g, n = statistics.median(graded), statistics.median(imported)
    print(f"{course.name}: one repository graded whole ({len(catalog.ids())} exercises) {g:.2f} s, "
          f"import numpy alone {n:.2f} s (medians of {rounds} interleaved rounds): {g - n:.2f} s beyond it, "
          f"{g / n:.1f}x")


def write_class(course: Path, folder: Path, students: int) -> None:
    """`students` repositories: the reference, the starter and each known mistake in turn, as clones."""
    catalog = Catalog(course)
    library = catalog.library()
    assert library is not None and library.starter is not None and library.reference is not None
    sources: list[dict[str, str]] = []
    for root in (library.reference, library.starter):
        sources.append({str(p.relative_to(root)): p.read_text() for p in root.rglob("*.py")
                        if "__pycache__" not in p.parts})
    for exercise in catalog.load_all():
        for mutant in exercise.mutants:
            submission = patched(library, mutant.path)
            sources.append({cell.label: cell.source for cell in submission.package})
    for index in range(students):
        repo = folder / f"student{index:03d}"
        for rel, text in sources[index % len(sources)].items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
        (repo / "tests").mkdir(exist_ok=True)
        (repo / "tests" / "test_own.py").write_text("def test_mine():\n    assert True\n")


def a_class(course: Path, students: int, jobs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        klass, out = Path(scratch) / "class", Path(scratch) / "reports"
        write_class(course, klass, students)
        seconds = timed([sys.executable, "-m", "grader", "batch", str(klass), "--out", str(out), "--exercises",
                         str(course), "-j", str(jobs), "--seed", "0"])
        graded = len(list((out / "students").glob("*/done.json")))
    print(f"{course.name}: a class of {students} repositories, grade batch -j {jobs}: {seconds:.1f} s "
          f"({seconds / students:.2f} s a repository, {graded} graded)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--course", action="append", choices=("needle-hw1", "minitorch-module1"))
    args = parser.parse_args()
    for name in args.course or ["needle-hw1", "minitorch-module1"]:
        course = ROOT / "examples" / "courses" / name
        one_repository(course, args.rounds)
        a_class(course, args.students, args.jobs)


if __name__ == "__main__":
    main()
