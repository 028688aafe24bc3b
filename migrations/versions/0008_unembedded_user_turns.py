"""``ix_drawers_unembedded_user``: users' turns still waiting for a vector.

Mining leaves assistant turns without a vector by default (``LOCI_MINING_EMBED_ROLES``),
so ``ix_drawers_null_embedding`` lists half the table, and the backfill cron's "user
turns with no vector, oldest first" walked all of them to find the few whose embedding
failed (0.4 s warm, 5.5 s cold at 1M drawers, every five minutes). The planner cannot
see that ``role`` and the missing vector are correlated, and extended statistics do not
cover ``IS NULL``; this partial index, whose predicate names the role, answers it
directly (about 1 ms). Other roles keep the general index: when they are embedded, rows
without a vector are rare in it; when they were just added, they are everywhere.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 06:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.execute("CREATE INDEX ix_drawers_unembedded_user ON drawers (id) WHERE embedding IS NULL AND role = 'user'")


def downgrade() -> None:
    op.execute("DROP INDEX ix_drawers_unembedded_user")
