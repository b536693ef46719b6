"""`grade store copy --to URL`: move a course's store to another database (SQLite to
PostgreSQL, or back), every row of every table of grader.service.db.schema as it is:
students keep their tokens (their digests are copied), each submission its id,
results and the queue their state, and a table added to the schema later comes along.

The target is migrated to the newest schema first (so its Alembic version is
stamped by the migrations themselves), must be empty, and is written in one
transaction: a copy that fails leaves it empty. The source is read in one snapshot.
Afterwards each table's rows are counted on both sides, and PostgreSQL's id
sequences are moved past the copied ids, so that the next upload gets a new one.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Engine, Table, func, insert, inspect, select, text

from grader.service.db import schema
from grader.service.db.backup import LIVE_SECONDS, live_workers
from grader.service.db.store import StoreError, is_sqlite, reading, shown_url, writing

#: rows written per INSERT: a submission holds up to max_upload_kib of code
BATCH = 200
#: the store's own bookkeeping, stamped by the target's migrations rather than copied
ALEMBIC = "alembic_version"


def copy_store(
    source: Engine, target: Engine, say: Callable[[str], None] = print
) -> dict[str, int]:
    """Copy every row of `source` into the empty, migrated `target`; the rows copied, per table."""
    if source.url == target.url:
        raise StoreError("the copy's target is the store itself: name another database with --to.")
    live = live_workers(source)
    if live:
        raise StoreError(
            f"the store {shown_url(str(source.url))} is in use ({len(live)} worker(s) graded on it "
            f"in the last {LIVE_SECONDS:.0f} s): stop grade serve and its workers first, so that "
            "no upload arrives after the copy and stays behind."
        )
    _same_schema(source, target)
    tables = (
        schema.metadata.sorted_tables
    )  # parents before children: every foreign key finds its row
    with writing(target) as db:
        full = {
            t.name: n
            for t in tables
            if (n := int(db.execute(select(func.count()).select_from(t)).scalar_one()))
        }
        if full:
            raise StoreError(
                f"the target {shown_url(str(target.url))} is not empty "
                f"({', '.join(f'{n} {t}' for t, n in full.items())}): copy into a new, empty "
                "database."
            )
    copied: dict[str, int] = {}
    with reading(source) as src, writing(target) as db:
        for table in tables:
            copied[table.name] = 0
            rows = src.execution_options(yield_per=BATCH).execute(
                select(table).order_by(*table.primary_key.columns)
            )
            for batch in rows.mappings().partitions(BATCH):
                db.execute(insert(table), [dict(row) for row in batch])
                copied[table.name] += len(batch)
            say(f"  {table.name}: {copied[table.name]} row(s)")
        if not is_sqlite(target):
            for table in tables:
                _move_sequence(db, table)
    with reading(target) as db:
        landed = {
            t.name: int(db.execute(select(func.count()).select_from(t)).scalar_one())
            for t in tables
        }
    if landed != copied:
        raise StoreError(
            f"the copy does not match its source: {copied} copied, {landed} in the target."
        )
    return copied


def _same_schema(source: Engine, target: Engine) -> None:
    """Both stores at the same migration, and none of the source's tables unknown to this grader."""
    with reading(source) as src, reading(target) as dst:
        versions = [
            db.execute(text(f"SELECT version_num FROM {ALEMBIC}")).scalar_one_or_none()
            for db in (src, dst)
        ]
        unknown = set(inspect(src).get_table_names()) - set(schema.metadata.tables) - {ALEMBIC}
    if versions[0] != versions[1]:
        raise StoreError(
            f"the source's schema is migration {versions[0]}, the target's {versions[1]}: "
            f"open both with the same grader version."
        )
    if unknown:
        raise StoreError(
            f"the source holds tables this grader does not know ({', '.join(sorted(unknown))}): "
            f"copy with the grader version that made them."
        )


def _move_sequence(db: Connection, table: Table) -> None:
    """A serial id's sequence past the largest copied id (explicit ids do not advance it)."""
    column = table.autoincrement_column
    if column is None:
        return
    db.execute(
        text(
            f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
            f"coalesce((SELECT max({column.name}) FROM {table.name}), 0) + 1, false)"
        )
    )
