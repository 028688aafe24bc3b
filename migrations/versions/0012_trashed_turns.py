"""Turns and conversations go to the trash too: ``deleted_at`` on both.

Deleting a drawer (or a closet, room or wing) now hides the verbatim turns it was made
from, and a whole conversation can be deleted; both are soft deletes stamped with the
same ``deleted_at`` as the palace rows trashed with them, so a restore brings back
exactly what went together. Nothing existing is in the trash, so the columns start empty.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column(
        "conversations", sa.Column("deleted_at", _TS, nullable=True, comment="in the trash since (domain.trash)")
    )
    op.add_column(
        "turns",
        sa.Column(
            "deleted_at",
            _TS,
            nullable=True,
            comment="in the trash since: with its conversation, or with a drawer made from it",
        ),
    )


def downgrade() -> None:
    op.drop_column("turns", "deleted_at")
    op.drop_column("conversations", "deleted_at")
