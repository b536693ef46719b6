"""The first store: students and tokens, submissions, the job queue, results and workers."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "students",
        sa.Column("id", sa.String(200), primary_key=True),
        *(
            sa.Column(name, sa.Text, nullable=False)
            for name in ("name", "email", "sis_user_id", "sis_login_id", "section")
        ),
        sa.Column("role", sa.String(20), nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "student_id", sa.String(200), sa.ForeignKey("students.id"), nullable=False, index=True
        ),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("revoked_at", sa.Double, nullable=True),
    )
    op.create_table(
        "sessions",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("student_id", sa.String(200), sa.ForeignKey("students.id"), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("expires_at", sa.Double, nullable=False),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("student_id", sa.String(200), sa.ForeignKey("students.id"), nullable=False),
        sa.Column("assignment", sa.String(200), nullable=False),
        sa.Column("idempotency_key", sa.String(100), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("filename", sa.Text, nullable=False),
        sa.Column("suffix", sa.String(10), nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=False),
        sa.Column("received_at", sa.Double, nullable=False),
        sa.Column("days_late", sa.Double, nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("seed_token", sa.String(40), nullable=False),
        sa.UniqueConstraint("student_id", "idempotency_key", name="uq_submission_key"),
    )
    op.create_index(
        "ix_submissions_student", "submissions", ["student_id", "assignment", "received_at"]
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "submission_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False, index=True
        ),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("worker", sa.String(100), nullable=True),
        sa.Column("lease_until", sa.Double, nullable=True),
        sa.Column("queued_at", sa.Double, nullable=False),
        sa.Column("started_at", sa.Double, nullable=True),
        sa.Column("finished_at", sa.Double, nullable=True),
    )
    op.create_index("ix_jobs_claim", "jobs", ["state", "priority", "id"])
    op.create_table(
        "results",
        sa.Column("job_id", sa.Integer, sa.ForeignKey("jobs.id"), primary_key=True),
        sa.Column(
            "submission_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False, index=True
        ),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Column("score", sa.Double, nullable=False),
        sa.Column("max_score", sa.Double, nullable=False),
        sa.Column("public_score", sa.Double, nullable=False),
        sa.Column("report", sa.Text, nullable=False),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("worker", sa.String(100), nullable=False),
        sa.Column("graded_at", sa.Double, nullable=False),
        sa.Column("seconds", sa.Double, nullable=False),
    )
    op.create_table(
        "workers",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", sa.Double, nullable=False),
        sa.Column("heartbeat_at", sa.Double, nullable=False),
        sa.Column("job_id", sa.Integer, nullable=True),
        sa.Column("graded", sa.Integer, nullable=False),
        sa.Column("load", sa.Double, nullable=False),
        sa.Column("cores", sa.Integer, nullable=False),
        sa.Column("stopped_at", sa.Double, nullable=True),
    )


def downgrade() -> None:
    for table in ("workers", "results", "jobs", "submissions", "sessions", "tokens", "students"):
        op.drop_table(table)
