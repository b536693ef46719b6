"""Judging a run: specs, expected values, checks, diagnosis, and the report they make (a grading
session, `session.GradingSession`, runs the pipeline, `grading.grade_submission`)."""
