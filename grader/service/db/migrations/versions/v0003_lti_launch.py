"""LTI 1.3 launch: the platforms' deployments this course accepts, the
OIDC logins under way (state and nonce, single-use, with their expiry),
and which session each launch made, for what platform and LTI user."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0003_lti_launch"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("issuer", sa.Text, nullable=False),
        sa.Column("client_id", sa.Text, nullable=False),
        sa.Column("deployment_id", sa.Text, nullable=False),
        sa.Column("memberships_url", sa.Text, nullable=False, server_default=""),
        sa.Column("context_id", sa.Text, nullable=False, server_default=""),
    )
    op.create_table(
        "lti_states",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("nonce", sa.String(64), nullable=False),
        sa.Column("login", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Double, nullable=False, index=True),
    )
    op.create_table(
        "lti_sessions",
        sa.Column(
            "digest",
            sa.String(64),
            sa.ForeignKey("sessions.digest", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "platform",
            sa.String(64),
            sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("subject", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in ("lti_sessions", "lti_states", "lti_platforms"):
        op.drop_table(table)
