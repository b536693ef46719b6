"""Alembic migrations of the course server's store (grader.service.db.store.migrate runs them)."""
