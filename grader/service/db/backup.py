"""`grade store backup` and `grade store restore`: a consistent copy
of a course's store while its server runs, and putting one back.

The snapshot point is the moment the backup's read snapshot is taken, after `grade store
backup` starts. A receipt is given only once its upload's transaction has committed, so
every receipt given before that point is in the backup, whole, with its job; nothing
committed after it is. SQLite: the online backup API (sqlite3.Connection.backup) in a single
step, which reads one snapshot (in WAL mode the server's writers neither wait for it nor
disturb it), into a file beside DEST renamed into place once complete and checked.
PostgreSQL: pg_dump's custom format, on a snapshot exported by a transaction of ours
(pg_export_snapshot), in which the figures printed are counted too: they are the dump's own.

A restore never revives a credential (grader.service.db.credentials): what the store
held of them just before is applied again over the backup's, and every session ends.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, func, select, text, update
from sqlalchemy.engine import make_url

from grader.service.db import schema
from grader.service.db.credentials import Credentials, reapply
from grader.service.db.store import (
    BUSY_SECONDS,
    StoreError,
    is_sqlite,
    migrate,
    open_store,
    reading,
    shown_url,
    writing,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"
#: a worker whose heartbeat is younger than this, and
#: that has not said it stopped, is grading on the store
LIVE_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a store (or a backup of it) holds, counted in one snapshot."""

    students: int
    tokens: int
    submissions: int
    results: int
    #: the newest submission's id and receipt time (0 and None for an empty store)
    newest: int
    newest_at: float | None

    def line(self) -> str:
        stamp = (
            ""
            if self.newest_at is None
            else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.newest_at))
        )
        when = f", the newest #{self.newest} received {stamp}" if stamp else ""
        return (
            f"{self.submissions} submission(s) of {self.students} student(s), {self.results} "
            f"result(s), {self.tokens} token(s){when}"
        )


def count(db: Connection) -> Snapshot:
    s = schema.submissions.c
    newest = db.execute(select(s.id, s.received_at).order_by(s.id.desc()).limit(1)).first()
    students, tokens, submissions, results = (
        int(db.execute(select(func.count()).select_from(t)).scalar_one())
        for t in (schema.students, schema.tokens, schema.submissions, schema.results)
    )
    return Snapshot(
        students,
        tokens,
        submissions,
        results,
        newest=int(newest.id) if newest else 0,
        newest_at=float(newest.received_at) if newest else None,
    )


def backup(engine: Engine, dest: Path) -> Snapshot:
    """Write a consistent copy of the store to `dest`
    (replaced only once the new copy is whole); what it holds."""
    dest = dest.expanduser()
    if dest.is_dir():
        raise StoreError(
            f"{dest} is a folder: name the backup's file, e.g. {dest / 'course-backup.db'}."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    # the copy holds every student's code and the tokens'
    # digests: readable by its owner only, from its first byte
    descriptor, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(descriptor)
    partial = Path(name)
    try:
        found = (
            _sqlite_backup(engine, partial) if is_sqlite(engine) else _pg_backup(engine, partial)
        )
        with partial.open("rb") as handle:
            os.fsync(handle.fileno())
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)
    return found


def sqlite_path(engine: Engine) -> Path:
    database = engine.url.database
    assert database is not None
    return Path(database)


def _sqlite_backup(engine: Engine, partial: Path) -> Snapshot:
    source = sqlite3.connect(sqlite_path(engine), timeout=BUSY_SECONDS)
    target = sqlite3.connect(partial)
    try:
        source.backup(
            target
        )  # every page in one step: one read snapshot, never restarted by a writer
        target.execute(
            "PRAGMA journal_mode=DELETE"
        )  # one self-contained file, without a -wal beside it
    finally:
        source.close()
        target.close()
    return check_sqlite_file(partial)


def check_sqlite_file(path: Path) -> Snapshot:
    """What a SQLite backup holds, once it is known to be whole and a course's store."""
    with path.open("rb") as handle:
        if handle.read(16) != SQLITE_MAGIC:
            raise StoreError(
                f"{path}: not a SQLite file (a backup of grade store backup on SQLite is one)."
            )
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: the SQLite file is damaged ({exc}).") from None
    finally:
        connection.close()
    if problems != ["ok"]:
        raise StoreError(f"{path}: the SQLite file is damaged: {'; '.join(problems[:3])}.")
    if not {"alembic_version", "submissions"} <= tables:
        raise StoreError(f"{path}: a SQLite file, but not a course's store (no submissions table).")
    engine = open_store(f"sqlite:///{path.resolve()}", migrate_now=False)
    try:
        with reading(engine) as db:
            return count(db)
    finally:
        engine.dispose()


def libpq(engine: Engine) -> tuple[str, dict[str, str]]:
    """The store's URL as pg_dump and pg_restore read it, and their
    environment: the password (if the URL holds one) in PGPASSWORD,
    never on a command line that anyone on the machine can list."""
    url = engine.url
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    plain = make_url(url.render_as_string(hide_password=False)).set(
        drivername="postgresql", password=None
    )
    return plain.render_as_string(hide_password=False), env


def pg_tool(name: str) -> str:
    import shutil

    found = shutil.which(name)
    if found is None:
        raise StoreError(
            f"{name} is not installed here: install PostgreSQL's client programs (Debian: apt-get "
            f"install postgresql-client), of the server's major version or newer."
        )
    return found


def _pg_backup(engine: Engine, partial: Path) -> Snapshot:
    url, env = libpq(engine)
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            # the snapshot pg_dump reads, exported by this
            # transaction, which must stay open while it does
            snapshot = str(connection.execute(text("SELECT pg_export_snapshot()")).scalar_one())
            found = count(connection)
            done = subprocess.run(
                [
                    pg_tool("pg_dump"),
                    "--format=custom",
                    f"--snapshot={snapshot}",
                    "--file",
                    str(partial),
                    "--dbname",
                    url,
                ],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
    if done.returncode != 0:
        raise StoreError(f"pg_dump of {shown_url(url)} failed: {done.stderr.strip()[-500:]}")
    return found


def live_workers(engine: Engine) -> list[str]:
    """Workers grading on the store now (a recent heartbeat, not stopped): its server is running."""
    w = schema.workers.c
    with reading(engine) as db:
        return [
            str(name)
            for name in db.execute(
                select(w.id).where(
                    w.stopped_at.is_(None), w.heartbeat_at >= time.time() - LIVE_SECONDS
                )
            ).scalars()
        ]


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restored store holds, and what of its
    credentials the restore changed back, in words."""

    snapshot: Snapshot
    credentials: list[str]


def restore(engine: Engine, source: Path, *, force: bool = False) -> Restored:
    """Put the backup `source` back as the store of `engine`
    (migrated to the newest schema after); what it holds.

    Refused while workers grade on the store, and, unless `force`, when the store
    holds anything: a restore replaces every submission in it. The credentials the
    store held before are applied again over the backup's
    (grader.service.db.credentials): a token revoked since the backup stays revoked.
    """
    shown = shown_url(str(engine.url))
    live = live_workers(engine)
    if live:
        raise StoreError(
            f"the store {shown} is in use: {len(live)} worker(s) graded on it in the last "
            f"{LIVE_SECONDS:.0f} s ({', '.join(live[:5])}). Stop grade serve and every grade "
            "worker on it first, then restore."
        )
    kind = _kind(source)
    if kind == "sqlite" and not is_sqlite(engine):
        raise StoreError(
            f"{source} is a SQLite backup and this store is PostgreSQL "
            f"({shown_url(str(engine.url))}): move it there with grade store copy --database "
            f"sqlite:///{source.resolve()} --to URL."
        )
    if kind == "pg" and is_sqlite(engine):
        raise StoreError(
            f"{source} is a PostgreSQL dump (pg_dump) and this store is SQLite: restore it into a "
            f"PostgreSQL database with --database postgresql://..."
        )
    with reading(engine) as db:
        held = count(db)
        before = Credentials.read(db)
    if (held.students or held.submissions) and not force:
        raise StoreError(
            f"the store {shown} holds {held.line()}: a restore replaces all of it. To restore into "
            "it anyway, stop the server and its workers, keep a copy of it as it is (grade store "
            "backup FILE), then run again with --force. Or restore into an empty store "
            "(--database URL, or another course folder)."
        )
    if kind == "sqlite":
        check_sqlite_file(source)
        _sqlite_restore(engine, source)
    else:
        _pg_restore(engine, source)
    engine.dispose()
    migrate(engine)  # a backup made by an older grader: brought to this one's schema
    _forget_the_old_workers(engine)
    with writing(engine) as db:
        changed = reapply(db, before)
        return Restored(count(db), changed)


def _forget_the_old_workers(engine: Engine) -> None:
    """The backup's workers graded on the store it was taken from, and none of them
    runs on this one: each is stopped, and the jobs they held are queued again.
    Left as they were, a backup taken while the server ran would make the restored
    store look in use for a minute, and its running jobs wait for leases to lapse."""
    w, j = schema.workers.c, schema.jobs.c
    with writing(engine) as db:
        db.execute(
            update(schema.workers)
            .where(w.stopped_at.is_(None))
            .values(stopped_at=time.time(), job_id=None)
        )
        db.execute(
            update(schema.jobs)
            .where(j.state == "running")
            .values(state="queued", worker=None, lease_until=None)
        )


def _kind(source: Path) -> str:
    try:
        with source.open("rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise StoreError(f"{source}: cannot read the backup ({exc.strerror}).") from None
    if head == SQLITE_MAGIC:
        return "sqlite"
    if head.startswith(PG_DUMP_MAGIC):
        return "pg"
    raise StoreError(
        f"{source}: neither a SQLite backup nor a pg_dump custom-format file: is it a backup made "
        "by grade store backup?"
    )


def _sqlite_restore(engine: Engine, source: Path) -> None:
    engine.dispose()
    reader = sqlite3.connect(f"file:{source.resolve()}?mode=ro", uri=True)
    target = sqlite3.connect(sqlite_path(engine), timeout=BUSY_SECONDS)
    try:
        # into the store's own file, through SQLite (its
        # WAL included): never a file renamed under a -wal
        reader.backup(target)
        target.execute("PRAGMA journal_mode=WAL")
    finally:
        reader.close()
        target.close()


def _pg_restore(engine: Engine, source: Path) -> None:
    url, env = libpq(engine)
    engine.dispose()
    # one transaction: a restore that fails leaves the store
    # as it was. --no-owner: the course's role owns it all
    done = subprocess.run(
        [
            pg_tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--single-transaction",
            "--exit-on-error",
            "--no-owner",
            "--no-privileges",
            "--dbname",
            url,
            str(source),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise StoreError(
            f"pg_restore into {shown_url(url)} failed, and changed nothing: "
            f"{done.stderr.strip()[-500:]}"
        )
