"""Mining failures on the conversation: attempts, the reason, and when it failed for good.

A job that could never succeed (a date its arithmetic overflowed on, a statement the
database refuses) was retried by arq and then re-queued by the five-minute sweep
forever, and nobody could see why. Now each mining job counts an attempt
(``mining_attempts``, cleared by a success); a failure retrying cannot fix records its
reason (``mining_error``) and time (``mining_failed_at``), and the sweep skips a
conversation that failed so or has used up its attempts, until new turns or a person's
``POST …/mine`` clear them. The reason is shown by ``GET /v1/jobs/{id}``,
``GET /v1/conversations/{id}`` and the activity feed.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "conversations",
        sa.Column(
            "mining_attempts",
            sa.Integer(),
            nullable=False,
            server_default=sa.text("0"),
            comment="mining jobs started since the last success",
        ),
    )
    op.add_column(
        "conversations", sa.Column("mining_error", sa.Text(), nullable=True, comment="why mining last failed")
    )
    op.add_column(
        "conversations",
        sa.Column(
            "mining_failed_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="set when mining failed for a reason retrying cannot fix; the sweep skips it",
        ),
    )


def downgrade() -> None:
    op.drop_column("conversations", "mining_failed_at")
    op.drop_column("conversations", "mining_error")
    op.drop_column("conversations", "mining_attempts")
