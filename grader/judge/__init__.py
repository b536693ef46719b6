"""Judging a run: specs, expected values, checks,
diagnosis, and the report they make (`grading.grade`)."""
