"""Each assignment's LMS column as launches name it: a launch's AGS endpoint claim gives the line
items service of its LMS course (`lineitems`, kept with its deployment, as the Names and Roles URL
is) and the line item of its link (`lineitem`, kept with the assignment the link opens), so that
publishing sends each assignment's scores to its own column (grader.service.lti.columns).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0006_lti_lineitems"
down_revision = "v0005_fair"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("lti_platforms") as table:
        table.add_column(sa.Column("lineitems_url", sa.Text, nullable=False, server_default=""))
    op.create_table(
        "lti_lineitems",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("assignment", sa.String(200), nullable=False, index=True),
        sa.Column("lineitem", sa.Text, nullable=False),
        sa.Column("resource_link", sa.Text, nullable=False),
        sa.Column("seen_at", sa.Double, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("lti_lineitems")
    with op.batch_alter_table("lti_platforms") as table:
        table.drop_column("lineitems_url")
