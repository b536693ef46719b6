"""Open the course's store: SQLite (WAL, every commit fsynced) by default,
PostgreSQL by URL; migrate it to the newest schema with Alembic, under a
lock, so that a server and its workers starting together migrate it once."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from grader.core.errors import GraderError

#: seconds a writer waits for SQLite's lock before an
#: upload fails loudly ($AUTOGRADER_DB_BUSY_SECONDS)
BUSY_SECONDS = float(os.environ.get("AUTOGRADER_DB_BUSY_SECONDS") or 10)
_MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: an arbitrary constant, the key of PostgreSQL's advisory lock held while migrating
_MIGRATION_LOCK = 0x67726164
_IMMEDIATE = "grader_sqlite_immediate"
#: SQLite connections a process keeps open (each a file handle and a small page cache)
SQLITE_CONNECTIONS = 40


class StoreError(GraderError):
    """The store cannot be opened, migrated or written: nothing was accepted."""


def open_store(
    url: str, *, migrate_now: bool = True, pool_size: int = 8, durable: bool = True
) -> Engine:
    """An engine on the store at `url`, migrated to the newest schema (created on first start).

    `durable`: each commit is on disk before it returns; what takes uploads and gives receipts needs
    it. A worker's claims, heartbeats and results need not wait for the disk (`durable=False`): a
    claim lost in a crash leaves its job queued, and a lost result leaves its job leased, to be
    graded again when the lease lapses; the write-once result keeps either from counting twice.
    """
    if url.startswith("postgres://"):
        url = "postgresql://" + url.removeprefix("postgres://")
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    try:
        if url.startswith("sqlite:///"):
            engine = _sqlite(url, durable)
        elif url.startswith("postgresql+psycopg://"):
            # a worker skips the ping before each transaction
            # (a round trip per job); it tries again on failure
            engine = create_engine(
                url,
                pool_size=pool_size,
                max_overflow=pool_size,
                pool_pre_ping=durable,
                connect_args={} if durable else {"options": "-c synchronous_commit=off"},
            )
        else:
            raise StoreError(
                f"database {url.split(':')[0]!r}: use a PostgreSQL URL (postgresql://user@host/db) "
                "or leave database unset for the course folder's SQLite file."
            )
        if migrate_now:
            migrate(engine)
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot open the store {shown_url(url)}: {_reason(exc)}") from None
    return engine


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _sqlite(url: str, durable: bool) -> Engine:
    path = Path(url.removeprefix("sqlite:///"))
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(path)
    # as many connections kept as the server's threads use at once (anyio's 40): a burst of uploads
    # would otherwise open, set up and close one for each request past the pool's default five
    engine = create_engine(
        url,
        pool_size=SQLITE_CONNECTIONS,
        max_overflow=SQLITE_CONNECTIONS,
        connect_args={"timeout": BUSY_SECONDS, "isolation_level": None, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _pragmas(connection: sqlite3.Connection, _: Any) -> None:
        cursor = connection.cursor()
        # WAL: readers never wait for the writer. synchronous=FULL: a commit is on
        # disk (the WAL fsynced) before it returns, so a receipt given after it
        # survives kill -9 and a power cut alike. NORMAL (not durable): a commit
        # survives the process's death, and a power cut may undo the last ones.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        cursor.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # a writing transaction takes the write lock at its start (waiting
        # up to busy_timeout): one that read first and then wrote could
        # otherwise fail half-way when another writer committed in between
        immediate = connection.get_execution_options().get(_IMMEDIATE)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _owner_only(path: Path) -> None:
    """The store holds every student's code and the tokens' digests: readable by its owner only,
    from its first byte. SQLite gives its -wal and -shm the mode of the database's file, so making
    that one 0600 (empty, as
    SQLite starts a database) covers all three; a store made before is brought to 0600 too."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(descriptor)
    except FileExistsError:
        pass
    for found in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if found.stat().st_mode & 0o077 and found.stat().st_uid == os.geteuid():
                found.chmod(0o600)
        except FileNotFoundError:
            pass


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A transaction that writes: committed (and on
    disk) when the block ends, rolled back if it raises."""
    with engine.connect() as connection:
        connection.execution_options(**{_IMMEDIATE: True})
        with connection.begin():
            yield connection


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A transaction that only reads: one consistent snapshot."""
    with engine.connect() as connection, connection.begin():
        yield connection


def migrate(engine: Engine, target: str = "head") -> None:
    """Bring the store to the newest schema (or `target`):
    every migration not yet applied, in order, once."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", str(_MIGRATIONS / "versions"))
    with writing(engine) as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        if _current(connection) == (_head(config) if target == "head" else target):
            return
        config.attributes["connection"] = connection
        command.upgrade(config, target)


def _current(connection: Any) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    return None if row is None else str(row[0])


def _head(config: Any) -> str | None:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(config).get_current_head()
    return None if head is None else str(head)


def shown_url(url: str) -> str:
    """The URL without its password; a SQLite store's path."""
    if url.startswith("sqlite:///"):
        return url.removeprefix("sqlite:///")
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.split(':')[0]}@{tail}"


def _reason(exc: SQLAlchemyError) -> str:
    original = getattr(exc, "orig", None)
    return (
        str(original or exc).strip().splitlines()[0]
        if str(original or exc).strip()
        else type(exc).__name__
    )


def write_failure(exc: SQLAlchemyError) -> tuple[int, str]:
    """The HTTP status and the words for a failed write:
    503 (busy: retry) or 500 (it cannot be written)."""
    if isinstance(exc, OperationalError) and "locked" in str(exc):
        return 503, "the course's database is busy"
    return 500, f"the course's database cannot be written ({_reason(exc)})"
