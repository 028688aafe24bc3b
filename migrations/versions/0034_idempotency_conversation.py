"""``idempotency_keys.conversation_id``: a conversation's stored answers go with it.

The answer a conversation write stores under its ``Idempotency-Key`` (`loci.idempotency`)
quotes that conversation (its row, the client's id). Purged, the conversation outlived itself
in those answers for a day: the same key sent again with the same transcript replayed the old
answer, a 201 that stored nothing (the conversation stayed a 404), and the key sent with the
transcript under another id was a 409. The key now names the conversation its answer is
about, and deleting the conversation (a purge, its trash emptied or expired, the account)
deletes the keys by the foreign key's cascade, on every path that deletes the row. The
partial index keeps that cascade a probe: only conversation writes set the column.

Revision ID: 0034
Revises: 0033
Create Date: 2026-11-29 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | None = None
depends_on: str | None = None

TABLE = "idempotency_keys"
COLUMN = "conversation_id"
INDEX = "ix_idempotency_keys_conversation_id"


def upgrade() -> None:
    op.add_column(
        TABLE,
        sa.Column(
            COLUMN,
            sa.BigInteger(),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=True,
            comment="the conversation the stored answer is about: deleted with it",
        ),
    )
    op.create_index(INDEX, TABLE, [COLUMN], postgresql_where=sa.text(f"{COLUMN} IS NOT NULL"))


def downgrade() -> None:
    op.drop_index(INDEX, table_name=TABLE)
    op.drop_column(TABLE, COLUMN)
