"""For the course server's tests: a course folder, a real `grade serve` process on a free loopback port, a real
PostgreSQL started in a temporary folder (Debian's initdb and pg_ctl, run as the postgres user when we are root),
`grade worker` processes, and the real `grade submit` client run as a student runs it."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions"


def course_folder(folder: Path, *, deadline: str, students: list[str], extra: str = "", late_days: int = 2,
                  per_day: int = 3, uploads_per_minute: int = 30, queued_per_student: int = 0) -> Path:
    """A course: the repository's exercises, a roster, and hw1 (node-mul) with the given deadline. Its students may
    queue any number of uploads (queued_per_student = 0) unless a test asks for the cap: test_service_fair.py tests
    the default."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text("id,name,email\n" + "".join(f"{s},Student {s},{s}@example.edu\n"
                                                                    for s in students))
    (folder / "course.toml").write_text(f'''name = "Autograd test course"
exercises = "{ROOT / 'exercises'}"
roster = "roster.csv"
late_days = {late_days}
uploads_per_minute = {uploads_per_minute}
queued_per_student = {queued_per_student}
max_upload_kib = 64
isolation = "landlock"

[assignments.hw1]
exercises = ["node-mul"]
deadline = {deadline}
late = "penalty"
penalty_per_day = 0.25
max_late_days = 3
per_day = {per_day}
counts = "best"
{extra}''')
    return folder


def grade(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def issue_tokens(course: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    done = grade("tokens", "--course", str(course), env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()[1:]
    return {line.split(",")[0]: line.split(",")[-1].strip() for line in lines}


def instructor_token(course: Path, env: dict[str, str] | None = None) -> str:
    done = grade("tokens", "--course", str(course), "--instructor", "prof", env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[1].split(",")[-1].strip()


@dataclass
class Server:
    """A `grade serve` process; `url` once it says where it listens."""

    course: Path
    env: dict[str, str] = field(default_factory=dict)
    workers: int = 1
    lease: float = 5.0
    #: more of grade serve's options
    args: tuple[str, ...] = ()
    process: subprocess.Popen[str] | None = None
    url: str = ""
    #: 0: any free port
    port: int = 0

    def start(self) -> Server:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "grader", "serve", "--course", str(self.course), "--port", str(self.port),
             "--workers", str(self.workers), "--lease", str(self.lease), *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **self.env},
            start_new_session=True)
        assert self.process.stdout is not None
        said = []  # lines before the address (e.g. "queued again: ..." after a crash), kept for a failure's message
        for _ in range(50):
            line = self.process.stdout.readline()
            said.append(line)
            if "://" in line or not line:
                break
        if "://" not in line:
            self.stop()  # never read a running server's output to its end: it has none
            raise AssertionError(f"grade serve did not start: {''.join(said)}")
        scheme, rest = line.split("://", 1)  # http, or https with --ssl-certfile
        self.url = f"{scheme.rsplit(None, 1)[-1]}://{rest.split('/', 1)[0]}"
        # started again, it comes back where it was, as a restarted server does: a student's token
        # stays bound to the address it first went to (grader.service.client.where)
        self.port = int(self.url.rsplit(":", 1)[1])
        return self

    def submit(self, token: str, *args: str, timeout: float = 180,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return grade("submit", *args, env={"AUTOGRADER_SERVER": self.url, "AUTOGRADER_TOKEN": token, "NO_COLOR": "1",
                                           **(env or {})}, timeout=timeout)

    def kill9(self, *, workers_too: bool = False) -> None:
        """kill -9 the server (and, with workers_too, its workers: the machine went down)."""
        assert self.process is not None
        if workers_too:
            os.killpg(self.process.pid, signal.SIGKILL)
        else:
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None:
            try:  # its workers too, should one be left
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if self.process.stdout is not None:
                self.process.stdout.close()


@contextmanager
def serving(course: Path, **options: object) -> Iterator[Server]:
    server = Server(course, **options).start()  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@dataclass
class Postgres:
    folder: Path
    port: int
    user: str

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/course"

    def psql(self, sql: str, database: str = "course") -> str:
        psql = pg_bin("psql")
        assert psql is not None
        done = subprocess.run([psql, "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d", database,
                               "-At", "-c", sql], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@contextmanager
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL of our own on a free loopback port, in a temporary folder, trusting loopback; removed after."""
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        import pytest

        if os.environ.get("AUTOGRADER_REQUIRE_POSTGRES") == "1":
            pytest.fail("AUTOGRADER_REQUIRE_POSTGRES=1 but no initdb (.ci/run installs Debian's postgresql)")
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run does)")
    folder = Path(tempfile.mkdtemp(prefix="grader-pg-"))
    data, port = folder / "data", free_port()
    run_as: list[str] = []
    if os.geteuid() == 0:  # postgres refuses to run as root
        shutil.chown(folder, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    user = "grader"

    def run(*command: str) -> None:
        done = subprocess.run([*run_as, *command], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr

    run(initdb, "-D", str(data), "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    run(pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start")
    try:
        createdb = pg_bin("createdb")
        assert createdb is not None
        run(createdb, "-h", "127.0.0.1", "-p", str(port), "-U", user, "course")
        yield Postgres(folder, port, user)
    finally:
        subprocess.run([*run_as, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def wait_until(check: object, timeout: float, what: str) -> None:
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def call(server: Server, path: str, token: str | None = None, method: str = "GET", body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, str]:
    """One request to the server as a browser or a script makes it: the status and the body (redirects followed)."""
    import urllib.error
    import urllib.request

    sent = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
    request = urllib.request.Request(server.url + path, data=body, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read().decode()


def page_session(server: Server, token: str) -> str:
    """A page session's cookie value, from a login link (its page's form posted, as its owner does)."""
    import urllib.error
    import urllib.request

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    link = server.submit(token, "--login").stdout.split()[-1]
    try:
        urllib.request.build_opener(Stay).open(urllib.request.Request(link, data=b"", headers={"Origin": server.url}),
                                               timeout=60)
    except urllib.error.HTTPError as exc:
        exc.close()
        return str(exc.headers["set-cookie"].split(";")[0].split("=", 1)[1])
    raise AssertionError("the login link set no session")


def post_form(server: Server, session: str, path: str, fields: dict[str, str]) -> tuple[int, str]:
    """A page's form posted from the server's own page, with the session's cookie."""
    from urllib.parse import urlencode

    return call(server, path, method="POST", body=urlencode(fields).encode(),
                headers={"Cookie": f"grader_session={session}", "Origin": server.url,
                         "Content-Type": "application/x-www-form-urlencoded"})
