"""What `grade store backup` costs on a term's store: a SQLite store filled with N graded submissions, backed up
while nothing else runs, and the size of the copy; with --postgres, the same on a PostgreSQL of its own.

    python benchmarks/store_backup.py [--submissions 20000] [--postgres]

Each submission is a real sample's bytes (a node-mul file, ~2 KiB) with a 6 kB report, as the server stores
them; the students, their tokens and the jobs come along. Prints the store's size, the backup's wall time
(the command as an admin runs it, a fresh process) and the copy's size, for each store.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from service_helpers import course_folder, postgres  # noqa: E402

from grader.service.db import schema  # noqa: E402
from grader.service.db.store import open_store, writing  # noqa: E402


def fill(url: str, submissions: int) -> None:
    engine = open_store(url)
    body = (ROOT / "submissions" / "node-mul" / "correct_lesson_style.py").read_bytes()
    report = '{"checks": [' + ",".join(['{"name": "probe", "status": "passed", "points": 1}'] * 120) + "]}"
    students = [f"s{i}" for i in range(max(submissions // 20, 1))]
    now = time.time()
    with writing(engine) as db:
        db.execute(insert(schema.students), [{"id": s, "name": s, "email": f"{s}@example.edu"} for s in students])
        db.execute(insert(schema.tokens), [{"id": f"{i:016x}", "student_id": s, "digest": "0" * 64, "created_at": now}
                                          for i, s in enumerate(students)])
        for start in range(0, submissions, 1000):
            rows = range(start + 1, min(start + 1000, submissions) + 1)
            db.execute(insert(schema.submissions), [{
                "id": i, "student_id": students[i % len(students)], "assignment": "hw1", "idempotency_key": f"k{i}",
                "sha256": f"{i:064x}", "filename": "mine.py", "suffix": ".py", "content": body + f"# {i}\n".encode(),
                "received_at": now, "days_late": 0.0, "seed": i, "seed_token": f"t{i}"} for i in rows])
            db.execute(insert(schema.jobs), [{"id": i, "submission_id": i, "state": "done", "queued_at": now}
                                            for i in rows])
            db.execute(insert(schema.results), [{
                "job_id": i, "submission_id": i, "outcome": "graded", "score": 10.0, "max_score": 10.0,
                "public_score": 9.0, "report": report, "worker": "w", "graded_at": now, "seconds": 0.2}
                for i in rows])
    engine.dispose()


def backup(course: Path, dest: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "store", "backup", "--course", str(course), str(dest)],
                   check=True, env={**os.environ, **env}, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=20000)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    print(f"{args.submissions} graded submissions; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="store-backup-") as scratch:
        folder = Path(scratch)
        course = course_folder(folder / "course", deadline="2099-01-01T00:00:00Z", students=["x"])
        fill(f"sqlite:///{course / 'server' / 'course.db'}", args.submissions)
        store = (course / "server" / "course.db").stat().st_size
        seconds = backup(course, folder / "sqlite.db", {})
        print(f"SQLite: store {store / 2**20:.0f} MiB, backup {seconds:.1f} s, "
              f"copy {(folder / 'sqlite.db').stat().st_size / 2**20:.0f} MiB")
        if args.postgres:
            with postgres() as pg:
                fill(pg.url, args.submissions)
                size = int(pg.psql("SELECT pg_database_size('course')"))
                seconds = backup(course, folder / "pg.dump", {"AUTOGRADER_DATABASE": pg.url})
                print(f"PostgreSQL: database {size / 2**20:.0f} MiB, pg_dump {seconds:.1f} s, "
                      f"dump {(folder / 'pg.dump').stat().st_size / 2**20:.0f} MiB (compressed)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
