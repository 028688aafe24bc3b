"""When a memory was said, beside when Loci learned it; and relations by their source turn.

``memories.said_at``: for a memory learned from a conversation (extracted at mining, or a
conversation's archive summary), when the user said it: the latest turn it came from (for a
summary, the latest turn summarised), never after the write. NULL for a memory written on
purpose (saved, updated, imported without one), which was said when it was written
(``valid_from``). It is what a memory is *dated by* where a person or a model reads it (the
recall block's line, the session-start block, the API's ``said_at``); ``valid_from`` stays when
Loci learned it, which the bitemporal reads (``as_of``), the daily decay (unconfirmed since)
and expiry (unused since) measure from: a chat from March mined in November is not
punished for being mined late.

Existing extracted rows are backfilled, capped at ``valid_from``: a mined memory from the latest
turn among its ``turn_seqs``; a conversation's summary (tag ``archive:conversation``) from the
latest turn its conversation had mined, which the latest summary covers (an older version may
date a little late: which turns it covered is not recorded). Rows with no such turn stay NULL
(dated by ``valid_from``, as before).

``ix_relations_source_drawer``: recall asks which of its candidate turns stated a fact the
graph has since closed (`retrieval.superseded`), by ``source_drawer_id``; the index also serves
the foreign key's ``ON DELETE SET NULL`` when a drawer is purged.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28 23:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | None = None
depends_on: str | None = None

ARCHIVE_TAG = "archive:conversation"
"""`ingest.archive.ARCHIVE_TAG`, written out: migrations import only the core's models."""


def upgrade() -> None:
    op.add_column(
        "memories",
        sa.Column(
            "said_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="learned from a conversation: when it was said (its latest turn); NULL: said when written",
        ),
    )
    op.execute(
        "UPDATE memories m SET said_at = LEAST(t.said, m.valid_from) FROM ("
        "  SELECT m2.id, max(t.created_at) AS said FROM memories m2"
        "  JOIN turns t ON t.conversation_id = m2.conversation_id AND t.seq = ANY(m2.turn_seqs)"
        "  WHERE m2.source = 'extracted' GROUP BY m2.id"
        ") t WHERE t.id = m.id"
    )
    op.execute(
        "UPDATE memories m SET said_at = LEAST(t.said, m.valid_from) FROM ("
        "  SELECT m2.id, max(t.created_at) AS said FROM memories m2"
        "  JOIN conversations c ON c.id = m2.conversation_id"
        "  JOIN turns t ON t.conversation_id = c.id AND t.seq <= c.mined_seq"
        f"  WHERE m2.source = 'extracted' AND m2.tags @> ARRAY['{ARCHIVE_TAG}'] GROUP BY m2.id"
        ") t WHERE t.id = m.id"
    )
    op.create_index("ix_relations_source_drawer", "relations", ["source_drawer_id"])


def downgrade() -> None:
    op.drop_index("ix_relations_source_drawer", table_name="relations")
    op.drop_column("memories", "said_at")
