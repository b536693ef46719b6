"""`grade serve`: open (or create) the store, put back what a killed server left half-graded, start
the server's own grading workers, and serve the API and pages on uvicorn, saying where it listens.

The server's workers are `grade worker` processes on the same store, started niced (an
upload's receipt must not wait behind grading) and started again if one dies. They leave
when the server is gone. Jobs a killed server's workers held on this machine are queued
again at once, and so is the job of one of its workers that died (a turn later; given up
once it took down MAX_ATTEMPTS workers); on other machines, when their lease lapses.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import SQLAlchemyError

from grader.service.config import Course
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.work import queue

if TYPE_CHECKING:
    from starlette.applications import Starlette

#: how much lower the server's workers run than the server itself
WORKER_NICE = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    lease: float = 30.0
    #: TLS on uvicorn itself: the certificate chain and its
    #: key (PEM); None: plain HTTP, for a proxy that does TLS
    certfile: Path | None = None
    keyfile: Path | None = None
    #: the proxies whose X-Forwarded-For and -Proto are believed (addresses or
    #: networks, comma-separated); "" (the default): none, whatever
    #: $FORWARDED_ALLOW_IPS says, so that no client can claim another address or https
    trusted_proxies: str = ""
    #: a line per request (its client's address, as the proxy rule has it) on standard output
    access_log: bool = False


def requeue_local(engine: Engine, course: Course | None = None) -> int:
    """Jobs held by workers of this machine that are no longer running:
    back in the queue now, a turn later, or given up once they took
    down MAX_ATTEMPTS workers (with the report their student reads)."""
    from grader.service.work.grading import given_up

    host = socket.gethostname()
    w, j = schema.workers.c, schema.jobs.c
    with reading(engine) as db:
        held = db.execute(
            select(j.id, w.pid)
            .join(schema.workers, w.id == j.worker)
            .where(j.state == "running", w.host == host)
        ).all()
    dead = [job for job, pid in held if not _alive(pid)]
    if not dead:
        return 0
    report = None if course is None else (lambda stored: given_up(course, stored))
    return len(queue.release(engine, j.id.in_(dead), report))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Workers:
    """The server's own workers: started, watched,
    started again when one dies, stopped with the server."""

    def __init__(
        self,
        course: Course,
        database: str,
        count: int,
        lease: float,
        say: Callable[[str], None],
        died: Callable[[], object] | None = None,
    ) -> None:
        self._command = [
            sys.executable,
            "-m",
            "grader",
            "worker",
            "--course",
            str(course.folder),
            "--lease",
            str(lease),
            "--parent",
            str(os.getpid()),
            "--nice",
            str(WORKER_NICE),
        ]
        # the store's URL may hold a password: in the
        # environment, not on a command line anyone can list
        self._env = {**os.environ, "AUTOGRADER_DATABASE": database}
        self._count = count
        self._say = say
        #: called once a worker has died, before another
        #: starts: its job goes back in the queue at once
        self._died = died
        self._procs: list[subprocess.Popen[bytes]] = []
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> None:
        self._procs = [self._spawn() for _ in range(self._count)]
        self._watcher.start()

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(self._command, stdin=subprocess.DEVNULL, env=self._env)

    def _watch(self) -> None:
        while not self._stop.wait(1.0):
            for index, proc in enumerate(self._procs):
                if proc.poll() is not None and not self._stop.is_set():
                    try:
                        self._say(
                            f"a grading worker left (exit {proc.returncode}); starting another"
                        )
                    except (
                        OSError
                    ):  # the server's output is gone (a closed pipe): the worker matters more
                        pass
                    if self._died is not None:
                        try:
                            self._died()
                        except (
                            SQLAlchemyError
                        ):  # the store is down: the job's lease lapses, and a worker reaps it
                            pass
                    self._procs[index] = self._spawn()

    def stop(self) -> None:
        self._stop.set()
        for proc in self._procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)  # it finishes the job it holds, then leaves
        for proc in self._procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def serve(
    course: Course,
    engine: Engine,
    secret: bytes,
    options: ServeOptions,
    say: Callable[[str], None] = print,
) -> None:
    """Serve until SIGINT or SIGTERM."""
    from grader.service.app import make_app

    again = requeue_local(engine, course)
    if again:
        say(f"queued again: {again} submission(s) a stopped server was grading")
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((options.host, options.port))
    listener.listen(2048)
    host, port = listener.getsockname()[:2]
    workers = None
    if options.workers:

        def died() -> None:
            requeue_local(engine, course)

        lease = options.lease
        workers = Workers(course, course.database, options.workers, lease, say, died=died)
    server = _server_class()(_config(make_app(course, engine, secret), options))
    if workers is not None:
        workers.start()
    shown = f"[{host}]" if ":" in host else host
    scheme = "https" if options.certfile else "http"
    say(
        f"grade serve: {course.name} on {scheme}://{shown}:{port}/ ({options.workers} grading "
        f"worker(s), store {_shown_store(course.database)})"
    )
    sys.stdout.flush()
    try:
        server.run(sockets=[listener])
    finally:
        if workers is not None:
            workers.stop()
        listener.close()


def _config(app: Starlette, options: ServeOptions) -> Any:
    """uvicorn's configuration of the app: its protocol puts a deadline on each request
    (grader.service.slow_clients)."""
    import uvicorn

    from grader.service.slow_clients import Timely

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=options.access_log,
        timeout_graceful_shutdown=5,
        backlog=2048,
        ssl_certfile=options.certfile,
        ssl_keyfile=options.keyfile,
        proxy_headers=bool(options.trusted_proxies),
        forwarded_allow_ips=options.trusted_proxies or None,
        http=Timely,
    )
    if options.access_log:
        logging.getLogger("uvicorn.access").setLevel(logging.INFO)
    return config


def _server_class() -> type:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, except that SIGINT and SIGTERM end `serve`
        normally: uvicorn raises the signal again once it has stopped,
        which would kill this process before it stops its workers."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {
                s: signal.signal(s, self.handle_exit) for s in (signal.SIGINT, signal.SIGTERM)
            }
            try:
                yield
            finally:
                for number, handler in previous.items():
                    signal.signal(number, handler)

    return Server


def _shown_store(url: str) -> str:
    if url.startswith("sqlite:///"):
        return str(Path(url.removeprefix("sqlite:///")))
    return url.split("@")[-1]
