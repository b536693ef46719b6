"""Every LMS context (a course, a section) a course is linked to keeps its own Names
and Roles URL: a launch records its context's, and `grade roster sync` reads every
one. The one URL kept per deployment was overwritten by each launch, so that a sync
read only the last context launched from and removed everyone only another listed.

The URL each deployment kept is carried over as its context's;
lti_platforms keeps its two columns, no longer written.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0009_lti_contexts"
down_revision = "v0008_corrections"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_contexts",
        sa.Column(
            "platform",
            sa.String(64),
            sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("context_id", sa.Text, primary_key=True),
        sa.Column("memberships_url", sa.Text, nullable=False, server_default=""),
        sa.Column("seen_at", sa.Double, nullable=False, server_default="0"),
    )
    op.execute(
        "INSERT INTO lti_contexts (platform, context_id, memberships_url, seen_at) SELECT id, "
        "context_id, memberships_url, 0 FROM lti_platforms WHERE context_id != '' AND "
        "memberships_url != ''"
    )


def downgrade() -> None:
    op.drop_table("lti_contexts")
