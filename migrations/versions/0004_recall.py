"""Recall: per-user full-text index and in-line embedding storage.

* ``ix_drawers_user_tsv``: a GIN index over ``(user_id, tsv)`` (btree_gin supplies the
  GIN operator class for bigint), so the keyword and preference signals intersect the
  user and the terms inside one index scan instead of reading every row of a large
  user (or every row of a common word across all users) and filtering.
* ``drawers.embedding`` storage PLAIN: a 384-dim vector is 1.5 KB, which pushed most
  rows over the 2 KB TOAST threshold, so each exact-distance scan (small users, time
  windows) paid a TOAST lookup per row. PLAIN keeps it in the heap row (content, the
  compressible column, is toasted instead). Affects rows written from now on.

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-22 04:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0004"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public")
    op.create_index("ix_drawers_user_tsv", "drawers", ["user_id", "tsv"], postgresql_using="gin")
    op.execute("ALTER TABLE drawers ALTER COLUMN embedding SET STORAGE PLAIN")


def downgrade() -> None:
    op.execute("ALTER TABLE drawers ALTER COLUMN embedding SET STORAGE EXTERNAL")
    op.drop_index("ix_drawers_user_tsv", table_name="drawers")
