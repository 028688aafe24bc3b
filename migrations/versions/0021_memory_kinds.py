"""Memory kinds and their expiry: how long a memory holds, stored with each version.

``kind`` (durable, contextual, temporary, deadline; `loci.memory_kinds`) and
``expires_at`` (NULL: never) on ``memories``. Every existing row becomes ``durable`` with
no expiry, which is what it was: nothing expired by time before this. The partial index
serves the daily sweep (`domain.memory_ttl`), which looks only at active rows that can
expire, a small part of the table; reads test ``expires_at`` on rows they already found.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | None = None
depends_on: str | None = None

KINDS = ("durable", "contextual", "temporary", "deadline")


def upgrade() -> None:
    # A constant default is a catalogue change only: no table rewrite, existing rows read 'durable'.
    op.add_column("memories", sa.Column("kind", sa.String(16), nullable=False, server_default=sa.text("'durable'")))
    op.add_column(
        "memories",
        sa.Column(
            "expires_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="when this version leaves the block and recall (its kind's TTL); NULL: never",
        ),
    )
    op.create_check_constraint("memory_kind", "memories", f"kind IN {KINDS!r}")
    op.create_check_constraint("memory_durable_never_expires", "memories", "kind <> 'durable' OR expires_at IS NULL")
    op.create_index(
        "ix_memories_expiring",
        "memories",
        ["expires_at"],
        postgresql_where=sa.text("valid_until IS NULL AND expires_at IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_memories_expiring", table_name="memories")
    op.drop_constraint("memory_durable_never_expires", "memories", type_="check")
    op.drop_constraint("memory_kind", "memories", type_="check")
    op.drop_column("memories", "expires_at")
    op.drop_column("memories", "kind")
