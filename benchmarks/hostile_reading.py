"""What reading a hostile notebook costs the trusted side, against an honest notebook of the same size.

    python benchmarks/hostile_reading.py [--runs N] [--revision REV]

For each size N (doubling) it reads, in the grading process, a notebook of N shell lines in one cell, one of
N cells without ids, and one whose cell is N `+` terms, each against an honest notebook of as many bytes,
interleaved round by round (the machine is noisy). It prints each one's time, its ratio to the honest one,
and how much that ratio grows when N doubles: about 1 for linear work, about 2 for quadratic. With
`--revision REV` it times that revision's reader too (taken with `git archive`, in a fresh interpreter per
call, as this checkout's is), interleaved with this checkout's: the before and after of a change to
what the trusted side reads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: read once to import what reading needs (nbformat), then time the reading of the sample
READ = ("import sys, time; from pathlib import Path; from grader.run.read.load import load_submission\n"
        "load_submission(Path(sys.argv[2]))\n"
        "t = time.perf_counter()\n"
        "try:\n    load_submission(Path(sys.argv[1]))\n"
        "except Exception as exc:\n    print(type(exc).__name__, file=sys.stderr)\n"
        "print(time.perf_counter() - t)")


def notebook(cells: list[dict[str, object]], minor: int = 5) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": minor, "metadata": {}, "cells": cells}).encode()


def code(source: str, ident: str | None = None) -> dict[str, object]:
    cell: dict[str, object] = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                               "source": source}
    if ident is not None:
        cell["id"] = ident
    return cell


def samples(n: int) -> dict[str, bytes]:
    magics = notebook([code("!x\n" * n + "x = 1")])
    no_ids = notebook([code("x = 1") for _ in range(n)])
    plus = notebook([code("total = " + "+".join(["1"] * n))])
    honest_line = notebook([code("x = 1\n" * (len(magics) // 6))])
    return {"magic lines": magics, "honest, as big": honest_line, "cells without ids": no_ids,
            "honest cells with ids": notebook([code("x = 1", f"c{i}") for i in range(n)]),
            "a sum of N terms": plus}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--revision", help="also time this git revision's reader (e.g. the one before the fix)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        readers = {"this checkout": [sys.executable, "-X", f"pycache_prefix={tmp}"]}
        paths = {"this checkout": str(ROOT)}
        if args.revision:
            old = Path(tmp) / "old"
            old.mkdir()
            archive = subprocess.run(["git", "archive", args.revision, "grader", "reference"], cwd=ROOT,
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            readers[args.revision] = [sys.executable, "-X", f"pycache_prefix={tmp}"]
            paths[args.revision] = str(old)
        previous: dict[tuple[str, str], float] = {}
        warm = Path(tmp) / "warm.ipynb"
        warm.write_bytes(notebook([code("x = 1", "c0")]))
        print(f"{'reader':>14} {'N':>6} {'notebook':>22} {'seconds':>8} {'x honest':>9} {'growth':>7}")
        for n in args.sizes:
            files = {}
            for name, data in samples(n).items():
                files[name] = Path(tmp) / f"{name.replace(' ', '_').replace(',', '')}-{n}.ipynb"
                files[name].write_bytes(data)
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.runs):
                for reader, python in readers.items():
                    env_python = [*python, "-c", f"import sys; sys.path.insert(0, {paths[reader]!r}); exec({READ!r})"]
                    for name, path in files.items():
                        started = time.perf_counter()
                        out = subprocess.run([*env_python, str(path), str(warm)], capture_output=True, text=True,
                                             check=False, cwd="/")
                        times.setdefault((reader, name), []).append(
                            float(out.stdout.strip() or time.perf_counter() - started))
            for reader in readers:
                for name, honest in (("magic lines", "honest, as big"), ("cells without ids", "honest cells with ids"),
                                     ("a sum of N terms", "honest, as big")):
                    seconds = statistics.median(times[(reader, name)])
                    ratio = seconds / max(statistics.median(times[(reader, honest)]), 1e-6)
                    growth = ratio / previous[(reader, name)] if (reader, name) in previous else float("nan")
                    previous[(reader, name)] = ratio
                    print(f"{reader[:14]:>14} {n:>6} {name:>22} {seconds:8.3f} {ratio:9.2f} {growth:7.2f}")


if __name__ == "__main__":
    main()
