"""Index the user's ``purge`` events in ``memory_history`` (a partial index: purges are rare).

An agent's revision (`domain.memory_scope.revision_query`) counts a purge of a memory it
could read by the event's own record (``meta.reach``): the rows it names are gone, so walking
the memories it may read (migration 0032) never finds it. When none of the user's newest
events reaches the agent, its latest purge is looked for among the user's purges alone: a few
probes here, where the user's whole history (every write since) was read before (0.6-0.9 ms
for 4,000 events on the 2-core dev VM).

Revision ID: 0033
Revises: 0032
Create Date: 2026-11-29 19:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | None = None
depends_on: str | None = None

TABLE = "memory_history"
INDEX = "ix_memory_history_user_purges"


def upgrade() -> None:
    op.create_index(INDEX, TABLE, ["user_id", "id"], postgresql_where=sa.text("event = 'purge'"))


def downgrade() -> None:
    op.drop_index(INDEX, table_name=TABLE)
