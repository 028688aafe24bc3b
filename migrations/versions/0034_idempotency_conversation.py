"""``idempotency_keys.conversation_id``: a conversation's stored answers go with it.

The answer a conversation write stores under its ``Idempotency-Key`` (`loci.idempotency`)
quotes that conversation (its row, the client's id). Purged, the conversation outlived itself
in those answers for a day: the same key sent again with the same transcript replayed the old
answer, a 201 that stored nothing (the conversation stayed a 404), and the key sent with the
transcript under another id was a 409. The key now names the conversation its answer is
about, and deleting the conversation (a purge, its trash emptied or expired, the account)
deletes the keys by the foreign key's cascade, on every path that deletes the row. The
partial index keeps that cascade a probe: only conversation writes set the column.

Keys stored before the upgrade name no conversation, so they would replay a conversation
purged after it for the rest of their day: the upgrade names it from the answer each holds
(a conversation write's `ingest.records.ConversationRef`: its ``id``, ``external_id``,
``turn_count``, ``mined_seq``; a memory save's answer has none of these), and deletes the keys
whose conversation is already gone (a purge before the upgrade): their answer quotes nothing
stored, and the retry they stand for must write anew.

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
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))  # every user's keys (row-level security)
    conn.execute(sa.text(BACKFILL))
    conn.execute(sa.text(DROP_ORPHANS))


CONVERSATION_ANSWER = (
    "jsonb_typeof(k.response) = 'object' AND k.response ?& array['id', 'external_id', 'turn_count', 'mined_seq']"
)
"""A stored answer that is a conversation write's (`ConversationRef`)."""
QUOTED_ID = "CASE WHEN k.response->>'id' ~ '^[0-9]{1,18}$' THEN (k.response->>'id')::bigint END"
"""The conversation id it quotes; a CASE, so no join order ever casts what is not a number."""
BACKFILL = f"""
UPDATE idempotency_keys k SET conversation_id = c.id
FROM conversations c
WHERE k.conversation_id IS NULL AND {CONVERSATION_ANSWER} AND c.id = {QUOTED_ID} AND c.user_id = k.user_id
"""
"""Each older conversation answer names the conversation it quotes (the same user's: ids are
never reused, so an id that is still there is that conversation, in the trash or not)."""
DROP_ORPHANS = f"""
DELETE FROM idempotency_keys k
WHERE k.conversation_id IS NULL AND {CONVERSATION_ANSWER}
"""
"""A conversation answer still naming none after the backfill quotes a conversation purged before
the upgrade: deleted, as the cascade deletes a later purge's."""


def downgrade() -> None:
    op.drop_index(INDEX, table_name=TABLE)
    op.drop_column(TABLE, COLUMN)
