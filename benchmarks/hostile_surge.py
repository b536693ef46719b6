"""The deadline surge of benchmarks/service_surge.py with and without one hostile student, interleaved in one run.

    python benchmarks/hostile_surge.py [--students 30] [--each 2] [--window 20] [--workers 2] [--rounds 2]

Each round starts a fresh `grade serve` (SQLite, `uploads_per_minute = 6`, the default) and sends the same surge
of the class's uploads (service_surge's mix) through real HTTP; a student waits for each report as `grade submit`
does (`?wait=`). Rounds alternate: without the hostile student, then with them. The hostile student first uploads
submissions/hostile/huge_report_values.py (1.3 KB, values of 150,000 floats) and, during the surge, asks for its
report from 24 threads in a loop (honouring Retry-After on a 429, as a client within the limits does), and uploads
a file that sleeps 4.6 s at import as often as the upload limit lets them. Printed: the other students' upload ->
receipt and upload -> report p50/p99, for each kind of round, side by side, and their ratio (target <= 1.2);
"report" is when their client had it (`?wait=`), "stored" when the store had it (results.graded_at).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from service_surge import ROOT, pct, plan

HUGE = ROOT / "submissions" / "hostile" / "huge_report_values.py"
#: other students' receipts, reports their client had, reports the store had (seconds each); what the hostile got
Round = tuple[list[float], list[float], list[float], str]
#: connections the server closed without an answer (tried again)
DROPPED: list[str] = []
SLOW = "import time\ntime.sleep(4.6)\n" + (ROOT / "submissions" / "node-mul" / "correct_lesson_style.py").read_text()


def course(folder: Path, students: int) -> Path:
    folder.mkdir(parents=True)
    (folder / "roster.csv").write_text("id,name\n" + "".join(f"s{i:04d},S{i}\n" for i in range(students)) +
                                       "evil,Hostile\n")
    (folder / "course.toml").write_text(
        f'name = "surge"\nexercises = "{ROOT / "exercises"}"\nroster = "roster.csv"\nuploads_per_minute = 6\n'
        'seed = 1\n\n[assignments.hw1]\nexercises = ["node-mul"]\nper_day = 0\n'
        '[assignments.torch]\nexercises = ["first-gradient"]\nper_day = 0\n')
    return folder


def call(url: str, token: str, path: str, body: bytes | None = None,
         name: str = "f.py") -> tuple[int, dict[str, str], bytes]:
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers |= {"Idempotency-Key": uuid.uuid4().hex, "X-Filename": name}
    request = urllib.request.Request(url + path, data=body, method="POST" if body is not None else "GET",
                                     headers=headers)
    for _ in range(10):  # a dropped connection is tried again, as grade submit does
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()
        except (urllib.error.URLError, ConnectionError) as exc:
            DROPPED.append(str(exc))
            time.sleep(0.5)
    raise ConnectionError(f"{path}: dropped 10 times: {DROPPED[-1]}")


def one_round(args: argparse.Namespace, uploads: list[tuple[float, str, Path]], tmp: Path,
              hostile: bool) -> Round:
    folder = course(tmp, args.students)
    done = subprocess.run([sys.executable, "-m", "grader", "tokens", "--course", str(folder)], capture_output=True,
                          text=True, check=True)
    tokens = {line.split(",")[0]: line.split(",")[-1].strip() for line in done.stdout.splitlines()[1:]}
    server = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", str(folder), "--port", "0",
                               "--workers", str(args.workers)], stdout=subprocess.PIPE, text=True)
    try:
        return surge(args, uploads, folder, server, tokens, hostile)
    finally:
        server.terminate()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()


def surge(args: argparse.Namespace, uploads: list[tuple[float, str, Path]], folder: Path,
          server: subprocess.Popen[str], tokens: dict[str, str], hostile: bool) -> Round:
    assert server.stdout is not None
    url = "http://" + server.stdout.readline().split("http://", 1)[1].split("/", 1)[0]
    while True:  # the workers are up, then their zygotes warm a moment
        with sqlite3.connect(folder / "server" / "course.db", timeout=30) as conn:
            if conn.execute("SELECT count(*) FROM workers WHERE stopped_at IS NULL").fetchone()[0] >= args.workers:
                break
        time.sleep(0.5)
    time.sleep(2)
    stop = threading.Event()
    seen: dict[str, int] = {}
    threads = []
    if hostile:
        _, _, body = call(url, tokens["evil"], "/api/submissions?assignment=hw1", HUGE.read_bytes(), HUGE.name)
        huge = int(json.loads(body)["submission"])
        call(url, tokens["evil"], f"/api/submissions/{huge}?wait=60")
        size = len(call(url, tokens["evil"], f"/api/submissions/{huge}")[2])
        seen["report bytes"] = size

        def flood() -> None:
            while not stop.is_set():
                status, headers, _ = call(url, tokens["evil"], f"/api/submissions/{huge}")
                seen[str(status)] = seen.get(str(status), 0) + 1
                if status == 429:
                    time.sleep(float(headers.get("retry-after", "1")))

        def slow() -> None:
            while not stop.is_set():
                status, headers, _ = call(url, tokens["evil"], "/api/submissions?assignment=hw1", SLOW.encode())
                seen[f"slow {status}"] = seen.get(f"slow {status}", 0) + 1
                stop.wait(float(headers.get("retry-after", "0")) if status == 429 else 0.1)

        threads = [threading.Thread(target=flood) for _ in range(24)] + [threading.Thread(target=slow)]
        for thread in threads:
            thread.start()
    receipts: list[float] = []
    reports: list[float] = []
    begins: dict[int, float] = {}
    lock = threading.Lock()
    t0 = time.time()

    def send(item: tuple[float, str, Path]) -> None:
        at, student, path = item
        time.sleep(max(0.0, t0 + at - time.time()))
        begun = time.time()
        assignment = "torch" if "first-gradient" in str(path) else "hw1"
        status, headers, body = call(url, tokens[student], f"/api/submissions?assignment={assignment}",
                                     path.read_bytes(), path.name)
        assert status in (200, 201), (status, body)  # 200: replayed, where a dropped upload was sent again
        ident = int(json.loads(body)["submission"])
        receipt = time.time() - begun
        while True:
            status, headers, body = call(url, tokens[student], f"/api/submissions/{ident}?wait=55")
            if status == 200 and json.loads(body)["state"] == "done":
                break
            time.sleep(float(headers.get("retry-after", "0")) if status == 429 else 0.0)
        with lock:
            receipts.append(receipt)
            reports.append(time.time() - begun)
            begins[ident] = begun

    try:
        with ThreadPoolExecutor(64) as pool:
            list(pool.map(send, uploads))
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    with sqlite3.connect(folder / "server" / "course.db", timeout=30) as conn:
        graded = dict(conn.execute("SELECT submission_id, min(graded_at) FROM results GROUP BY submission_id"))
    stored = [graded[i] - begun for i, begun in begins.items()]
    return receipts, reports, stored, ", ".join(f"{k}: {v}" for k, v in sorted(seen.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--each", type=int, default=2)
    parser.add_argument("--window", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each kind, interleaved")
    parser.add_argument("--torch-share", type=float, default=0.0)
    args = parser.parse_args()
    uploads = plan(args.students, args.each, args.window, args.torch_share, random.Random(26))
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores; {len(uploads)} uploads a round")
    found: dict[bool, tuple[list[float], list[float], list[float]]] = {False: ([], [], []), True: ([], [], [])}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.rounds):
            for hostile in (False, True):
                receipts, reports, stored, seen = one_round(args, uploads, Path(tmp) / f"{n}-{hostile}", hostile)
                found[hostile][0].extend(receipts)
                found[hostile][1].extend(reports)
                found[hostile][2].extend(stored)
                print(f"round {n + 1} {'with' if hostile else 'without'} the hostile student: receipt p99 "
                      f"{pct(receipts, 99) * 1000:.0f} ms, report p99 {pct(reports, 99):.2f} s "
                      f"(stored {pct(stored, 99):.2f} s)"
                      + (f" (hostile: {seen})" if hostile else ""))
    print(f"{'':28s}{'without':>12s}{'with':>12s}{'ratio':>8s}")
    for name, which, unit, scale in (("receipt p50", 0, "ms", 1000), ("receipt p99", 0, "ms", 1000),
                                     ("report p50", 1, "s", 1), ("report p99", 1, "s", 1),
                                     ("stored p50", 2, "s", 1), ("stored p99", 2, "s", 1)):
        q = 50 if "p50" in name else 99
        a, b = pct(found[False][which], q), pct(found[True][which], q)
        print(f"  other students' {name:12s}{a * scale:10.2f}{unit:>2s}{b * scale:10.2f}{unit:>2s}{b / a:8.2f}")
    print("target: each p99 ratio <= 1.2")
    print(f"connections dropped without an answer (tried again): {len(DROPPED)} {sorted(set(DROPPED))[:3]}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
