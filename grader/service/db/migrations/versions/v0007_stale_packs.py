"""Who works from a stale pack: a student whose `grade submit` showed a pack holding an older
version of an exercise than the course's (grader.service.packs), by exercise, until they show a
current one; for the instructor's page.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0007_stale_packs"
down_revision = "v0006_lti_lineitems"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stale_packs",
        sa.Column("student", sa.String(200), primary_key=True),
        sa.Column("exercise", sa.String(200), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("seen_at", sa.Double, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("stale_packs")
