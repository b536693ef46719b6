"""What each isolation mode costs per run: one submission graded again and again in each mode, interleaved.

    python benchmarks/isolation.py [--runs 30] [--rounds 3]

Each mode this machine allows (the strongest, Landlock where it works, none) gets a warm sandbox of its
own, and the strongest one a second sandbox without the zygotes' cgroups (grader.run.confine.cgroups); every
round grades the sample `--runs` times in each in turn, so a shared machine's drift touches all of them
alike. Prints each one's median milliseconds per graded run and its cost over `none`, the same zygote
and guard without any confinement, and what the cgroups cost: the strongest mode with them against
without them (which must stay under 5 ms a run).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from pathlib import Path

from grader.judge.catalog import Catalog
from grader.judge.session import grade
from grader.run.confine import cgroups, isolate
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"


def modes() -> dict[str, isolate.Mode]:
    best = isolate.best_mode()
    found = {best.kind: best, f"{best.kind}, no cgroups": dataclasses.replace(best, run_cgroups=False)}
    for kind in ("landlock", "none"):
        found.setdefault(kind, isolate.Mode(kind))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    catalog = Catalog(ROOT / "exercises")
    exercise = catalog.load("node-mul")
    boxes: dict[str, Sandbox] = {}
    for label, mode in modes().items():
        box = Sandbox(hide=[catalog.root], mode=mode)
        try:
            box.__enter__()
            grade(SAMPLE, [exercise], sandbox=box)  # warm, and proof the mode works here
        except Exception as exc:  # noqa: BLE001 - a mode this machine cannot set up is left out, and said so
            print(f"{label:30} not available here: {type(exc).__name__}: {exc}")
            continue
        boxes[label] = box
    times: dict[str, list[float]] = {kind: [] for kind in boxes}
    for _ in range(args.rounds):
        for kind, box in boxes.items():
            for _ in range(args.runs):
                started = time.perf_counter()
                grade(SAMPLE, [exercise], sandbox=box)
                times[kind].append(time.perf_counter() - started)
    for box in boxes.values():
        box.__exit__(None, None, None)
    base = statistics.median(times["none"]) if "none" in times else None
    print(f"{SAMPLE.name} graded {args.rounds} x {args.runs} times per mode, in turn")
    for kind, samples in times.items():
        median = statistics.median(samples)
        over = f"   {1000 * (median - base):+6.1f} ms over none" if base is not None and kind != "none" else ""
        print(f"  {kind:30} {1000 * median:7.1f} ms per graded run{over}")
    best = isolate.best_mode().kind
    place = cgroups.place()
    if best in times and f"{best}, no cgroups" in times:
        cost = statistics.median(times[best]) - statistics.median(times[f"{best}, no cgroups"])
        where = ", ".join(f"v{h.version} {'+'.join(h.controllers)}" for h in place.hierarchies) or "none to be had"
        print(f"  the zygotes' cgroups ({where}): {1000 * cost:+.2f} ms per graded run (must stay under 5 ms)")


if __name__ == "__main__":
    main()
