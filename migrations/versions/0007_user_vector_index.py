"""``ix_drawers_user_vectors``: a user's drawers that have a vector, for exact search.

Mining embeds only the roles ``LOCI_MINING_EMBED_ROLES`` names (users' turns by
default), so about half of a palace has no vector. Exact nearest-neighbour search read
every drawer of the user through ``(user_id, occurred_at)`` to find the embedded half;
this partial index lists just those, and lets recall count them with an index-only scan
(the count decides between exact search and the HNSW graph).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 06:00:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.execute("CREATE INDEX ix_drawers_user_vectors ON drawers (user_id) WHERE embedding IS NOT NULL")


def downgrade() -> None:
    op.execute("DROP INDEX ix_drawers_user_vectors")
