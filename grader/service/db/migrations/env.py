"""Alembic's environment: migrate the connection
grader.service.db.store.migrate hands over (no alembic.ini)."""

from __future__ import annotations

from alembic import context

from grader.service.db.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
