"""Each job's turn among its student's (fair scheduling): a claim takes the
lowest turn of the best priority, so one student's queued work waits behind every
other student's next job instead of in front of it. And each worker's heartbeat
interval, by which the instructor's page tells a lost worker (two beats missed).

Jobs queued before this migration all take turn 0: first come, first served among them, as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0005_fair"
down_revision = "v0004_pages_deadlines_audit"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        table.add_column(sa.Column("turn", sa.Integer, nullable=False, server_default="0"))
    op.drop_index("ix_jobs_claim", table_name="jobs")
    op.create_index("ix_jobs_claim", "jobs", ["state", "priority", "turn", "id"])
    with op.batch_alter_table("workers") as table:
        table.add_column(sa.Column("beat", sa.Double, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workers") as table:
        table.drop_column("beat")
    op.drop_index("ix_jobs_claim", table_name="jobs")
    op.create_index("ix_jobs_claim", "jobs", ["state", "priority", "id"])
    with op.batch_alter_table("jobs") as table:
        table.drop_column("turn")
