"""An instructor's corrections of what counts, set from the pages: for one student's
assignment, a score set by hand with its reason, the submission chosen to count, or the
assignment excused (grader.service.policy.corrections). Each change is in the audit log too."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0008_corrections"
down_revision = "v0007_stale_packs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "corrections",
        sa.Column("assignment", sa.String(200), primary_key=True),
        sa.Column("student", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("score", sa.Double, nullable=True),
        sa.Column("submission", sa.Integer, nullable=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("set_by", sa.String(200), nullable=False),
        sa.Column("set_at", sa.Double, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("corrections")
