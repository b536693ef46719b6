"""Deadlines and extensions set from the instructor's pages
(rule_overrides, over course.toml's), and the audit log of every change
made from the pages (who, what, when, the old and the new value)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0004_pages_deadlines_audit"
down_revision = "v0004_i31"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rule_overrides",
        sa.Column("assignment", sa.String(200), primary_key=True),
        sa.Column("student", sa.String(200), primary_key=True),
        sa.Column("moment", sa.Double, nullable=True),
        sa.Column("set_by", sa.String(200), nullable=False),
        sa.Column("set_at", sa.Double, nullable=False),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Double, nullable=False),
        sa.Column("actor", sa.String(200), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("assignment", sa.String(200), nullable=False, server_default=""),
        sa.Column("student", sa.String(200), nullable=False, server_default=""),
        sa.Column("old", sa.Text, nullable=False, server_default=""),
        sa.Column("new", sa.Text, nullable=False, server_default=""),
    )


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_table("rule_overrides")
