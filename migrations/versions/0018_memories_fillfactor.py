"""Room on every memories page for the recall counter's next row version.

Each recall that finds a memory bumps its ``recall_count`` and ``last_recalled_at``
(`retrieval.memory_search.count_recalled`). Neither column is indexed, so Postgres can
write the new row version on the same page without touching an index (a HOT update), but
only when that page has room for it. With the default fillfactor (100) the pages are
packed full, so every bump became a full update: a new entry in each of the table's
indexes, the HNSW graph included (a graph search per insert), and a page of bloat. That
was most of what searching memories added to a recall's p95 on the 2-core dev VM.

A fillfactor of 70 leaves 30 % of each page (about 2.4 kB) free, room for one more
version of a memory row (its 384-dimension vector is 1.5 kB); pruning reclaims the old
version the next time the page is read. Pages written before this migration keep their
old layout until rewritten (``VACUUM FULL memories`` or the next dump and restore).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-25 14:00:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | None = None
depends_on: str | None = None

MEMORIES_FILLFACTOR = 70


def upgrade() -> None:
    op.execute(f"ALTER TABLE memories SET (fillfactor = {MEMORIES_FILLFACTOR})")


def downgrade() -> None:
    op.execute("ALTER TABLE memories RESET (fillfactor)")
