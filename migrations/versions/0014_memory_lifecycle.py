"""Memories that maintain themselves: a confidence to decay from, and the events that say so.

Mining now extracts memories and a daily job lets unconfirmed ones fade (issue #18):

- ``confidence_base``: an extracted memory's confidence when last stated or confirmed;
  ``confidence`` decays from it with time and a confirmation puts it back. NULL reads as
  ``confidence`` (a row written without one has not decayed yet); existing extracted rows
  start with the confidence they have.
- history events ``skip`` (an extraction left an explicit memory alone, recorded so a
  person can see what automation wanted) and ``expire`` (a memory nobody recalled for long
  moved to the trash), with the end reason ``expire``; the end reason ``trash`` for an
  extracted memory that went to the trash with the turns it came from.
- a partial index over active extracted memories: what the lifecycle job scans, across
  users, every day.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None

END_REASONS_0013 = "('update', 'forget', 'merge', 'decay', 'undo')"
END_REASONS = "('update', 'forget', 'merge', 'decay', 'undo', 'expire', 'trash')"
EVENTS_0013 = "('add', 'update', 'forget', 'confirm', 'link', 'unlink', 'restore', 'decay', 'merge', 'purge', 'undo')"
EVENTS = (
    "('add', 'update', 'forget', 'confirm', 'link', 'unlink', 'restore', 'decay', 'merge', 'purge', 'undo', "
    "'skip', 'expire')"
)


def _checks(end_reasons: str, events: str) -> None:
    op.drop_constraint("memory_end_reason", "memories", type_="check")
    op.create_check_constraint("memory_end_reason", "memories", f"end_reason IN {end_reasons}")
    op.drop_constraint("memory_history_event", "memory_history", type_="check")
    op.create_check_constraint("memory_history_event", "memory_history", f"event IN {events}")


def upgrade() -> None:
    op.add_column(
        "memories",
        sa.Column(
            "confidence_base",
            sa.Float(),
            nullable=True,
            comment="extracted: the confidence when last stated or confirmed, which confidence decays from "
            "(NULL: confidence itself)",
        ),
    )
    op.execute("UPDATE memories SET confidence_base = confidence WHERE confidence IS NOT NULL")
    _checks(END_REASONS, EVENTS)
    op.create_index(
        "ix_memories_extracted_active",
        "memories",
        ["id"],
        postgresql_where=sa.text("source = 'extracted' AND valid_until IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_memories_extracted_active", table_name="memories")
    op.execute("DELETE FROM memory_history WHERE event IN ('skip', 'expire')")
    op.execute("UPDATE memories SET end_reason = 'forget' WHERE end_reason IN ('expire', 'trash')")
    _checks(END_REASONS_0013, EVENTS_0013)
    op.drop_column("memories", "confidence_base")
