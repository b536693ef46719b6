"""A session (and a login link) belongs to the token that made it, and an
idempotency key is one student's for one assignment: sessions get their
token's id, and submissions are unique per student, assignment and key.

Sessions a login link made before this migration name no token: they are ended
(their students sign in again with `grade submit --login`), since nothing could
tell whether their token was since revoked. A launch's sessions (kind "lti") have
no token: their platform and LTI user stand for it (grader.service.tokens.who_is).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0004_i31"
down_revision = "v0003_lti_launch"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(sa.text("DELETE FROM sessions WHERE kind <> 'lti'"))
    with op.batch_alter_table("sessions") as table:
        table.add_column(sa.Column("token_id", sa.String(32), nullable=True))
    with op.batch_alter_table("submissions") as table:
        table.drop_constraint("uq_submission_key", type_="unique")
        table.create_unique_constraint(
            "uq_submission_key", ["student_id", "assignment", "idempotency_key"]
        )


def downgrade() -> None:
    with op.batch_alter_table("submissions") as table:
        table.drop_constraint("uq_submission_key", type_="unique")
        table.create_unique_constraint("uq_submission_key", ["student_id", "idempotency_key"])
    with op.batch_alter_table("sessions") as table:
        table.drop_column("token_id")
