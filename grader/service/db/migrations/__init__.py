"""Alembic migrations of the course server's store (grader.service.store.migrate runs them)."""
