"""Students keep the roster's LTI user id beside the
gradebook's id (rosters may give both), for AGS publishing."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("students") as table:
        table.add_column(sa.Column("lti_user_id", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("students") as table:
        table.drop_column("lti_user_id")
