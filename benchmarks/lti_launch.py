"""LTI 1.3 launches into a real `grade serve` on SQLite, from the tests' platform on loopback (tests/ags_platform.py).

    python benchmarks/lti_launch.py [--launches 200] [--threads 8]

Each launch is the whole login as a browser makes it (login initiation, the platform's authorization page, the
id_token's form_post, the one-time /lti/open), by `--threads` students at once. Printed: a launch's time end to
end and the server's part of it (login + launch + open), p50/p95/p99; how many times the server fetched the
platform's key set (its cache: once per process, not once per launch); and the logins left in the store.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from ags_platform import LEARNER, Platform, running  # noqa: E402
from lti_launch import authorize, launch, login, lti_course, opener, public_pem, request, serving, tool_key  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lti-bench-"))
    key = tool_key(folder)
    users = {f"lti-s{i}": {"name": f"Student {i}", "roles": [LEARNER]} for i in range(1, 4)}
    with running(Platform(client_id="grader-tool", key_id="k1", public_key=public_pem(key), users=users)) as lms:
        course = lti_course(folder / "course", lms, key, deadline="2030-01-01T00:00:00Z")
        with serving(course, lms) as tool:
            def one(i: int) -> tuple[float, float]:
                user = f"lti-s{1 + i % 2}"
                start = time.perf_counter()
                pending = login(tool, lms, user)
                server = time.perf_counter() - start
                _, fields = authorize(pending)
                mark = time.perf_counter()
                answer = launch(tool, fields, pending.cookie)
                opened = request(tool + opener(answer), cookies=pending.cookie)
                assert opened.status == 303, opened.body
                end = time.perf_counter()
                return end - start, server + end - mark

            one(0)  # the first: the key set fetched, the store warm
            with ThreadPoolExecutor(args.threads) as pool:
                times = list(pool.map(one, range(args.launches)))
        with sqlite3.connect(course / "server" / "course.db") as db:
            left = db.execute("SELECT count(*) FROM lti_states WHERE expires_at > ?", (time.time(),)).fetchone()[0]
    for label, values in (("launch, end to end", [t for t, _ in times]), ("the server's part", [s for _, s in times])):
        cuts = statistics.quantiles(values, n=100)
        print(f"{label}: p50 {cuts[49] * 1000:.0f} ms, p95 {cuts[94] * 1000:.0f} ms, p99 {cuts[98] * 1000:.0f} ms "
              f"({len(values)} launches, {args.threads} at once)")
    print(f"key set fetched {lms.jwks_fetches} time(s); logins left under way in the store: {left}")


if __name__ == "__main__":
    main()
