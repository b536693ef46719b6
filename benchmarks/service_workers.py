"""`grade worker`s on PostgreSQL: what the queue costs, how throughput grows with workers, and what PostgreSQL sustains.

    python benchmarks/service_workers.py [--submissions 60] [--rounds 2] [--jobs 3000] [--family-submissions 20]

A PostgreSQL of its own (initdb and pg_ctl in a temporary folder, on loopback) holds a course's queue.

1. The queue's cost per submission: in one process with one warm sandbox, the same stored submissions
   graded directly (Grader.grade on rows fetched beforehand) and through the queue (claim with the
   submission's bytes, grade, write the result once), interleaved round by round; the claim and the write
   are also timed alone.
   Target: under 10 ms a submission.
2. Throughput per worker core for engine (node-mul), torch (first-gradient; zero-grad-fix, whose probes run
   training loops) and tensor (tensor-elementwise) exercises: one worker, directly, a mix of right and buggy
   samples of each, each submission its own seed (so a failing one runs the exercise's mutants on its inputs).
3. Throughput with 1, 2 and 3 `grade worker` processes (each its own scratch folder and cache), started,
   registered and warmed up on other submissions first, then the same submissions queued again (a regrade)
   and drained.
4. PostgreSQL alone: `--jobs` jobs claimed and their results written (a 6 kB report each) by 1, 2 and 4
   processes as fast as they can: claims and result writes per second.
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAMPLES = ROOT / "submissions"
FAMILIES = {"engine": ("hw1", ["node-mul/correct_lesson_style.py", "node-mul/swapped_slopes.py",
                               "node-mul/overwrite.py", "node-mul/no_rmul.py"]),
            "torch": ("tgrad", ["first-gradient/correct_float32.py", "first-gradient/no_requires_grad_on_b.py",
                                "first-gradient/shared_tensors.py"]),
            "torch-loop": ("torch", ["zero-grad-fix/correct_sgd.py", "zero-grad-fix/clears_when_logging.py",
                                     "zero-grad-fix/keeps_weights_between_calls.py"]),
            "tensor": ("tensor", ["tensor-elementwise/correct_local_slopes.py",
                                  "tensor-elementwise/relu_wrong_sign.py"])}
#: submissions that warm a fresh worker's zygotes up before part 3 is timed
WARM = ("warm", FAMILIES["engine"][1])


def start_postgres(folder: Path) -> tuple[str, list[str], Path]:
    initdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))[-1]
    pg_ctl = str(Path(initdb).with_name("pg_ctl"))
    run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if run_as:
        shutil.chown(folder, "postgres")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    subprocess.run([*run_as, initdb, "-D", str(folder / "data"), "-U", "grader", "--auth=trust", "--no-sync"],
                   check=True, capture_output=True)
    subprocess.run([*run_as, pg_ctl, "-D", str(folder / "data"), "-l", str(folder / "log"), "-w", "-o",
                    f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200", "start"],
                   check=True, capture_output=True)
    subprocess.run([str(Path(initdb).with_name("createdb")), "-h", "127.0.0.1", "-p", str(port), "-U", "grader",
                    "course"], check=True, capture_output=True)
    return f"postgresql://grader@127.0.0.1:{port}/course", [*run_as, pg_ctl, "-D", str(folder / "data")], folder


def make_course(folder: Path, database: str) -> Path:
    folder.mkdir()
    (folder / "course.toml").write_text(
        f'name = "workers"\nexercises = "{ROOT / "exercises"}"\ndatabase = "{database}"\nuploads_per_minute = 0\n'
        '[assignments.hw1]\nexercises = ["node-mul"]\n[assignments.torch]\nexercises = ["zero-grad-fix"]\n'
        '[assignments.tensor]\nexercises = ["tensor-elementwise"]\n'
        '[assignments.tgrad]\nexercises = ["first-gradient"]\n[assignments.warm]\nexercises = ["node-mul"]\n')
    return folder


def store(engine: object, course: object, family: str, count: int, rng: random.Random) -> list[int]:
    import time

    from grader.outputs.students import Student
    from grader.service import uploads
    from grader.service.tokens import Who, issue

    assignment, files = WARM if family == "warm" else FAMILIES[family]
    issue(engine, [Student(id=f"{family}{i}", name="", submission="") for i in range(count)])
    ids = []
    for i in range(count):
        body = (SAMPLES / rng.choice(files)).read_bytes() + f"\n# {family} {i}\n".encode()
        new = uploads.NewSubmission(who=Who(f"{family}{i}", "student"), rules=course.assignments[assignment],
                                    content=body, name="x.py", suffix=".py", key=f"k{i}", arrived=time.time())
        receipt = uploads.store(engine, course, new, b"0123456789abcdef0123")
        ids.append(receipt.submission)
    return ids


def drain_jobs(engine: object) -> None:
    from sqlalchemy import update

    from grader.service.db import schema
    from grader.service.db.store import writing

    with writing(engine) as db:
        db.execute(update(schema.jobs).where(schema.jobs.c.state != "done").values(state="done"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--family-submissions", type=int, default=20, help="per family, for part 2")
    parser.add_argument("--jobs", type=int, default=3000)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: overhead,families,workers,pg")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores")
    tmp = Path(tempfile.mkdtemp(prefix="grader-bench-"))
    tmp.chmod(0o755)  # the postgres user goes through it to its own folder
    (tmp / "pg").mkdir()
    url, pg_ctl, _ = start_postgres(tmp / "pg")
    try:
        from grader.service.config import load_course
        from grader.service.db.store import open_store

        course = load_course(make_course(tmp / "course", url))
        engine = open_store(url)
        worker_engine = open_store(url, durable=False)
        rng = random.Random(27)
        ids = {family: store(engine, course, family, args.submissions, rng) for family in FAMILIES}
        store(engine, course, "warm", 12, rng)
        drain_jobs(engine)
        if "overhead" not in skip:
            overhead(worker_engine, course, ids["engine"], args.rounds, tmp)
        if "families" not in skip:
            families(engine, course, {k: v[:args.family_submissions] for k, v in ids.items()}, tmp)
        if "workers" not in skip:
            workers(engine, course, ids["engine"], tmp)
        if "pg" not in skip:
            postgres_alone(url, args.jobs)
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")


def _sandbox(course: object, scratch: Path, lean: bool) -> object:
    from grader.run.sandbox import Sandbox

    return Sandbox(lean=lean, hide=[course.folder, course.exercises, scratch],
                   minimum=course.isolation)


def overhead(engine: object, course: object, ids: list[int], rounds: int, tmp: Path) -> None:
    from grader.service.work import queue
    from grader.service.work.grading import Grader, fetch

    scratch = tmp / "overhead"
    scratch.mkdir()
    worker = queue.register(engine, "bench-overhead")
    with _sandbox(course, scratch, lean=True) as sandbox:
        grader = Grader(course, sandbox, scratch)
        stored = [fetch(engine, i) for i in ids]
        for row in stored:  # warm up: each seed's expected values and mistakes' runs, kept for both sides alike
            grader.grade(queue.Claimed(0, row.id, 1), row)
        direct_total, queued_total, parts = 0.0, 0.0, 0.0
        for number in range(rounds * 2):
            if number % 4 in (0, 3):  # direct, queued, queued, direct, ...: neither side always goes first
                began = time.perf_counter()
                for row in stored:
                    grader.grade(queue.Claimed(0, row.id, 1), row)
                direct_total += time.perf_counter() - began
                continue
            queue.enqueue_all(engine, "hw1")
            began = time.perf_counter()
            while True:
                t = time.perf_counter()
                job = queue.claim(engine, worker, 30)
                if job is None:
                    break
                row = job.stored or fetch(engine, job.submission)
                parts += time.perf_counter() - t
                result = grader.grade(job, row)
                t = time.perf_counter()
                queue.finish(engine, worker, result)
                parts += time.perf_counter() - t
            queued_total += time.perf_counter() - began
    n = len(ids) * rounds
    print(f"1. queue overhead, {n} engine submissions each way, interleaved: direct {direct_total / n * 1000:.1f} ms, "
          f"through the queue {queued_total / n * 1000:.1f} ms a submission: "
          f"{(queued_total - direct_total) / n * 1000:+.1f} ms; "
          f"claim + result write alone {parts / n * 1000:.2f} ms (target < 10 ms)")


def families(engine: object, course: object, ids: dict[str, list[int]], tmp: Path) -> None:
    from grader.run.child.warm import warm_torch
    from grader.service.work import queue
    from grader.service.work.grading import Grader, fetch

    warm_torch()
    for family, rows in ids.items():
        scratch = tmp / f"family-{family}"
        scratch.mkdir()
        with _sandbox(course, scratch, lean=not family.startswith("torch")) as sandbox:
            grader = Grader(course, sandbox, scratch)
            stored = [fetch(engine, i) for i in rows]
            grader.grade(queue.Claimed(0, stored[0].id, 1), stored[0])
            began = time.perf_counter()
            for row in stored:
                grader.grade(queue.Claimed(0, row.id, 1), row)
            seconds = time.perf_counter() - began
        print(f"2. {family}: {len(stored) / seconds:.2f} submissions/s on one worker ({seconds / len(stored):.3f} s "
              f"each; each its own seed)")


def workers(engine: object, course: object, ids: list[int], tmp: Path) -> None:
    from sqlalchemy import func, select

    from grader.service.db import schema
    from grader.service.db.store import reading
    from grader.service.work import queue

    env = {**os.environ, "AUTOGRADER_DATABASE": str(course.database)}
    for count in (1, 2, 3):
        with reading(engine) as db:
            seen = db.execute(select(func.count()).select_from(schema.workers)).scalar_one()
        procs = [subprocess.Popen([sys.executable, "-m", "grader", "worker", "--course", str(course.folder),
                                   "--scratch", str(tmp / f"w{count}-{i}"), "--idle-exit", "3"],
                                  env={**env, "AUTOGRADER_CACHE": str(tmp / f"cache{count}-{i}")},
                                  stdout=subprocess.DEVNULL) for i in range(count)]
        while True:
            with reading(engine) as db:
                if db.execute(select(func.count()).select_from(schema.workers)).scalar_one() >= seen + count:
                    break
            time.sleep(0.2)
        queue.enqueue_all(engine, "warm")  # each worker's zygotes up and warm, as on a server before the deadline
        while queue.depth(engine)["queued"] or queue.depth(engine)["running"]:
            time.sleep(0.05)
        began, wall = time.perf_counter(), time.time()
        queue.enqueue_all(engine, "hw1")
        while queue.depth(engine)["queued"] or queue.depth(engine)["running"]:
            time.sleep(0.05)
        seconds = time.perf_counter() - began
        for proc in procs:
            proc.wait()
        with reading(engine) as db:
            r = schema.results.c
            each = db.execute(select(r.worker, func.count(), func.avg(r.seconds)).where(r.graded_at >= wall)
                              .group_by(r.worker)).all()
        print(f"3. {count} worker(s): {len(ids)} engine submissions in {seconds:.1f} s: "
              f"{len(ids) / seconds:.2f} submissions/s ("
              + ", ".join(f"{n} graded at {avg:.3f} s each" for _, n, avg in each) + ")")


def _claimer(url: str, ident: str, report: str, out: multiprocessing.Queue, go: object) -> None:  # type: ignore[type-arg]
    from grader.service.db.store import open_store
    from grader.service.work import queue

    engine = open_store(url, migrate_now=False, pool_size=2, durable=False)
    queue.depth(engine)  # connected, and everything imported
    out.put("ready")
    go.wait()  # type: ignore[attr-defined]
    done, began = 0, time.perf_counter()
    while (job := queue.claim(engine, ident, 30)) is not None:
        queue.finish(engine, ident, queue.Result(job=job.job, submission=job.submission, outcome="graded", score=1.0,
                                                  max_score=1.0, public_score=1.0, report=report, error="",
                                                  seconds=0.0))
        done += 1
    out.put((done, time.perf_counter() - began))


def postgres_alone(url: str, jobs: int) -> None:
    from sqlalchemy import delete

    from grader.service.db import schema
    from grader.service.db.store import open_store, writing
    from grader.service.work import queue

    engine = open_store(url)
    report = "x" * 6000
    spawn = multiprocessing.get_context("spawn")  # fresh interpreters: this one has torch and threads
    for processes in (1, 2, 4):
        queued = 0
        while queued < jobs:  # jobs of the stored submissions, again and again
            queued += queue.enqueue_all(engine, None)
        names = [queue.register(engine, f"pg-{processes}-{i}") for i in range(processes)]
        out: multiprocessing.Queue = spawn.Queue()  # type: ignore[type-arg]
        go = spawn.Event()
        procs = [spawn.Process(target=_claimer, args=(url, name, report, out, go)) for name in names]
        for proc in procs:
            proc.start()
        for _ in procs:
            assert out.get() == "ready"
        go.set()
        finished = [out.get() for _ in procs]
        for proc in procs:
            proc.join()
        total, seconds = sum(n for n, _ in finished), max(t for _, t in finished)
        print(f"4. PostgreSQL, {processes} claimer(s): {total} jobs claimed and their results written in "
              f"{seconds:.1f} s: {total / seconds:.0f} claims (and result writes) per second")
        with writing(engine) as db:
            db.execute(delete(schema.results).where(schema.results.c.worker.like("pg-%")))


if __name__ == "__main__":
    main()
